package trust

import "fmt"

// FileError is a problem with one metadata file of the trust chain: the
// file it is about (its slash path in the registry, such as
// "metadata/timestamp.json"), what is wrong with it, and the category
// (ErrMalformed, ErrSignature, ErrMismatch, ErrExpired, ErrRollback,
// ErrMissing, or the error reading it). File is "" when the problem is
// not about one file (a structure that could not be parsed, the
// catalog's recorded history). Callers that report per file (verify)
// take File and Reason from it, never from its text.
type FileError struct {
	File string // "metadata/<name>", or ""
	Msg  string // what is wrong, without File or Err; "" when Err says it all
	Err  error  // the category or cause
}

func (e *FileError) Error() string {
	if e.File == "" {
		return e.Reason()
	}
	return e.File + ": " + e.Reason()
}

// Reason is the error's message without the file it names.
func (e *FileError) Reason() string {
	switch {
	case e.Msg == "":
		return e.Err.Error()
	case e.Err == nil:
		return e.Msg
	}
	return e.Msg + ": " + e.Err.Error()
}

// Unwrap returns the category or cause.
func (e *FileError) Unwrap() error { return e.Err }

// fileError is a *FileError about the metadata file name: the message
// format and args make, with the category or cause err.
func fileError(name string, err error, format string, args ...any) error {
	return &FileError{File: displayName(name), Msg: fmt.Sprintf(format, args...), Err: err}
}
