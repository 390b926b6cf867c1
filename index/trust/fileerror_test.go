package trust

import (
	"errors"
	"testing"
)

func TestFileError(t *testing.T) {
	tests := []struct {
		name       string
		err        *FileError
		want, why  string
		wantUnwrap error
	}{
		{"file, message and kind", &FileError{File: "metadata/timestamp.json", Msg: "version 3, want 4", Err: ErrMismatch},
			"metadata/timestamp.json: version 3, want 4: " + ErrMismatch.Error(), "version 3, want 4: " + ErrMismatch.Error(), ErrMismatch},
		{"file and kind", &FileError{File: "metadata/1.root.json", Err: ErrMissing},
			"metadata/1.root.json: " + ErrMissing.Error(), ErrMissing.Error(), ErrMissing},
		{"file and message", &FileError{File: "metadata/targets.json", Msg: "no usable catalog.json target"},
			"metadata/targets.json: no usable catalog.json target", "no usable catalog.json target", nil},
		{"no file", &FileError{Msg: "catalog serial 3 is lower than the recorded 4 (sha256:ab)", Err: ErrCatalogRollback},
			"catalog serial 3 is lower than the recorded 4 (sha256:ab): " + ErrCatalogRollback.Error(), "catalog serial 3 is lower than the recorded 4 (sha256:ab): " + ErrCatalogRollback.Error(), ErrCatalogRollback},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.err.Error(); got != tt.want {
				t.Errorf("Error() = %q; want %q", got, tt.want)
			}
			if got := tt.err.Reason(); got != tt.why {
				t.Errorf("Reason() = %q; want %q", got, tt.why)
			}
			if got := errors.Unwrap(tt.err); got != tt.wantUnwrap {
				t.Errorf("Unwrap() = %v; want %v", got, tt.wantUnwrap)
			}
		})
	}
}

// TestFileErrorCarriesTheFile checks that a broken root says which file
// and why in its fields, so that callers need not read its text.
func TestFileErrorCarriesTheFile(t *testing.T) {
	_, err := RootKeyIDs([]byte(`{"signed": {"_type": "targets"}, "signatures": []}`))
	var fe *FileError
	if !errors.As(err, &fe) {
		t.Fatalf("RootKeyIDs(targets) = %v; want a *FileError", err)
	}
	if fe.File != "metadata/root.json" || !errors.Is(err, ErrMalformed) || fe.Msg == "" {
		t.Errorf("RootKeyIDs(targets) = %#v; want metadata/root.json, ErrMalformed and a message", fe)
	}
}
