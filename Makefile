# make check is what CI runs (.ci/run calls it after installing the peers).
GO ?= go
STATICCHECK ?= $(shell command -v staticcheck 2>/dev/null || echo $(shell $(GO) env GOPATH)/bin/staticcheck)

.PHONY: check fmt vet lint cross test bench build

check: fmt vet lint cross test

fmt:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet ./...

lint:
	$(STATICCHECK) ./...

# cross: the other systems and word sizes users run hdig on still build
# (tests included on 32-bit, where an int is 32 bits).
cross:
	GOARCH=386 $(GO) vet ./...
	GOARCH=arm64 $(GO) build ./...
	GOOS=darwin $(GO) build ./...
	GOOS=windows $(GO) build ./...
	GOOS=freebsd $(GO) build ./...

test:
	$(GO) test -race -count=1 -timeout 20m ./...

# build: the binary as shipped, static (no C library mapped: 2 MiB less RSS)
build:
	CGO_ENABLED=0 $(GO) build -o hdig .

bench:
	$(GO) test -run '^$$' -bench . -benchtime 1x ./...
