package cmd

import (
	"context"
	"errors"
	"fmt"
)

// Exit statuses, as ../shared/spec/contract.md fixes them for all commands.
const (
	ExitOK          = 0   // every digest that could be checked matched
	ExitIntegrity   = 1   // a digest did not match, a check failed, a patch did not reproduce its target
	ExitUsage       = 2   // bad flag, bad URL, unreadable input file
	ExitUnverified  = 3   // --require-digest and no accepted digest verified
	ExitNetwork     = 4   // status >= 400, refused, reset, timed out, truncated body
	ExitProtocol    = 5   // protocol error no fallback could repair
	ExitInterrupted = 130 // interrupted
)

const exitStatusHelp = `

EXIT STATUS
  0    success: every digest present that hdig could check matched
  1    integrity failure: a digest did not match, a check failed, a patch failed
  2    usage error: bad flag, bad URL, unreadable input file
  3    unverified: --require-digest and no accepted digest verified
  4    HTTP or network failure: status >= 400, refused, reset, timed out, truncated
  5    protocol error that no fallback could repair
  130  interrupted`

// exitError carries an explicit exit status.
type exitError struct {
	code int
	err  error
	hint string // a line printed after the error's (usageHelpf)
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// withExit wraps err so that hdig exits with code.
func withExit(code int, err error) error {
	if err == nil {
		return nil
	}
	return &exitError{code: code, err: err}
}

// usageErrorf is a usage error (exit 2).
func usageErrorf(format string, a ...any) error {
	return &exitError{code: ExitUsage, err: fmt.Errorf(format, a...)}
}

// silentError sets the exit status without printing anything more: the
// command has already said what went wrong.
type silentError struct{ code int }

func (e *silentError) Error() string { return fmt.Sprintf("exit status %d", e.code) }

// exitSilently ends the command with code, printing nothing more.
func exitSilently(code int) error {
	if code == ExitOK {
		return nil
	}
	return &silentError{code: code}
}

// classifiers map errors of the packages to exit statuses; command files
// add theirs with addClassifier in init. This and ExitCode are the one place
// where errors become exit statuses.
var classifiers []func(error) (int, bool)

func addClassifier(f func(error) (int, bool)) { classifiers = append(classifiers, f) }

// ExitCode maps an error to hdig's exit status.
func ExitCode(err error) int {
	if err == nil {
		return ExitOK
	}
	var se *silentError
	if errors.As(err, &se) {
		return se.code
	}
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	if errors.Is(err, context.Canceled) {
		return ExitInterrupted
	}
	for _, f := range classifiers {
		if code, ok := f(err); ok {
			return code
		}
	}
	return ExitIntegrity
}
