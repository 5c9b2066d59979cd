package fetch

// Progress sees a download's bytes arrive. Client.Download calls it from
// several goroutines; implementations must be safe for concurrent use. The
// fetch package knows nothing of terminals: a view (hdig's is an mpb bar
// set on stderr) implements this interface, and NoProgress shows nothing.
type Progress interface {
	// Start announces the representation's size (-1 when unknown) and the
	// bytes already on disk (a resumed part).
	Start(total, done int64)
	// Piece announces piece id of size bytes (-1 when unknown), of which
	// done are already on disk, and returns the bar its bytes go to.
	Piece(id int, size, done int64) PieceProgress
	// Restart says the download starts over from nothing (the origin sent
	// a new version, or ignored Range).
	Restart()
	// Finish ends the display, once, whatever the outcome.
	Finish()
}

// PieceProgress counts the bytes of one piece.
type PieceProgress interface {
	// Add counts n bytes received and written.
	Add(n int)
	// Done ends the piece: ok false when it failed (a retry calls Piece
	// again).
	Done(ok bool)
}

// NoProgress is the Progress that shows nothing.
type NoProgress struct{}

// Start does nothing.
func (NoProgress) Start(int64, int64) {}

// Piece returns a bar that counts nothing.
func (NoProgress) Piece(int, int64, int64) PieceProgress { return noPiece{} }

// Restart does nothing.
func (NoProgress) Restart() {}

// Finish does nothing.
func (NoProgress) Finish() {}

type noPiece struct{}

func (noPiece) Add(int)   {}
func (noPiece) Done(bool) {}
