module github.com/hdig/hdig

go 1.26

require (
	github.com/andybalholm/brotli v1.2.8
	github.com/dunglas/httpsfv v1.1.2
	github.com/fatih/color v1.19.0
	github.com/klauspost/compress v1.20.3
	github.com/mattn/go-isatty v0.0.24
	github.com/molecule-man/go-brrr v1.3.0
	github.com/spf13/cobra v1.10.2
	github.com/spf13/pflag v1.0.9
	github.com/ulikunitz/xz v0.5.17
	github.com/vbauerster/mpb/v8 v8.9.3
	golang.org/x/net v0.52.0
	golang.org/x/sys v0.42.0
)

require (
	github.com/VividCortex/ewma v1.2.0 // indirect
	github.com/acarl005/stripansi v0.0.0-20180116102854-5a71ef0e047d // indirect
	github.com/inconshreveable/mousetrap v1.1.0 // indirect
	github.com/mattn/go-colorable v0.1.14 // indirect
	github.com/mattn/go-runewidth v0.0.16 // indirect
	github.com/rivo/uniseg v0.4.7 // indirect
)
