package citool

import (
	"errors"
	"testing"
)

// TestCondition: a program found is true; a missing one is false (the
// script skips) outside CI and an error naming it in CI.
func TestCondition(t *testing.T) {
	missing := errors.New(`exec: "x": executable file not found in $PATH`)
	for _, tc := range []struct {
		name    string
		ci      string
		err     error
		want    bool
		wantErr bool
	}{
		{"found", "", nil, true, false},
		{"found in CI", "true", nil, true, false},
		{"missing", "", missing, false, false},
		{"missing in CI", "true", missing, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("CI", tc.ci)
			got, err := Condition(tc.err, "x is not on PATH in CI")
			if got != tc.want || (err != nil) != tc.wantErr {
				t.Fatalf("Condition = %v, %v; want %v, error %v", got, err, tc.want, tc.wantErr)
			}
			if err != nil && !errors.Is(err, missing) {
				t.Errorf("the error %v does not wrap the look-up's", err)
			}
		})
	}
}
