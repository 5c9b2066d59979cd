package patch

import "fmt"

// Instruction types of a code table entry (RFC 3284 §5.4).
const (
	instNoop = 0
	instAdd  = 1
	instRun  = 2
	instCopy = 3
)

// codeEntry is one of the 256 instruction-pair codes.
type codeEntry struct {
	inst1, size1, mode1 byte
	inst2, size2, mode2 byte
}

// codeTable is a VCDIFF code table with the address cache sizes it goes with.
type codeTable struct {
	entries      [256]codeEntry
	near, same   int
	defaultTable bool
}

// defaultCodeTable builds the table of RFC 3284 §5.6.
func defaultCodeTable() *codeTable {
	t := &codeTable{near: 4, same: 3, defaultTable: true}
	e := t.entries[:0]
	e = append(e, codeEntry{inst1: instRun}, codeEntry{inst1: instAdd})
	for s := 1; s <= 17; s++ {
		e = append(e, codeEntry{inst1: instAdd, size1: byte(s)})
	}
	for m := 0; m < 9; m++ {
		e = append(e, codeEntry{inst1: instCopy, mode1: byte(m)})
		for s := 4; s <= 18; s++ {
			e = append(e, codeEntry{inst1: instCopy, size1: byte(s), mode1: byte(m)})
		}
	}
	for m := 0; m < 6; m++ {
		for a := 1; a <= 4; a++ {
			for c := 4; c <= 6; c++ {
				e = append(e, codeEntry{instAdd, byte(a), 0, instCopy, byte(c), byte(m)})
			}
		}
	}
	for m := 6; m < 9; m++ {
		for a := 1; a <= 4; a++ {
			e = append(e, codeEntry{instAdd, byte(a), 0, instCopy, 4, byte(m)})
		}
	}
	for m := 0; m < 9; m++ {
		e = append(e, codeEntry{instCopy, 4, byte(m), instAdd, 1, 0})
	}
	if len(e) != 256 {
		panic(fmt.Sprintf("patch: developer error: default code table has %d entries", len(e)))
	}
	return t
}

var defaultTable = defaultCodeTable()

// bytes serializes the table as RFC 3284 §7 step (a): 1536 bytes.
func (t *codeTable) bytes() []byte {
	b := make([]byte, 1536)
	for i, e := range t.entries {
		b[i], b[256+i], b[512+i] = e.inst1, e.inst2, e.size1
		b[768+i], b[1024+i], b[1280+i] = e.size2, e.mode1, e.mode2
	}
	return b
}

// parseCodeTable reverses bytes, checking every entry against the cache sizes.
func parseCodeTable(b []byte, near, same int) (*codeTable, error) {
	if len(b) != 1536 {
		return nil, corruptf("code table: want 1536 bytes, got %d", len(b))
	}
	if near+same > 254 {
		return nil, corruptf("code table: near %d + same %d caches exceed 256 address modes", near, same)
	}
	t := &codeTable{near: near, same: same}
	modes := 2 + near + same // up to 256: every mode byte is then valid
	for i := range t.entries {
		e := codeEntry{b[i], b[512+i], b[1024+i], b[256+i], b[768+i], b[1280+i]}
		if e.inst1 > instCopy || e.inst2 > instCopy {
			return nil, corruptf("code table entry %d: unknown instruction type", i)
		}
		if (e.inst1 == instCopy && int(e.mode1) >= modes) || (e.inst2 == instCopy && int(e.mode2) >= modes) {
			return nil, corruptf("code table entry %d: address mode beyond %d modes", i, modes)
		}
		t.entries[i] = e
	}
	return t, nil
}
