package main

import (
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"
)

// cmdBlobBytes sets VAR to the bytes of every blob file of the directory
// registry DIR (temp files aside): what gc frees is read off the disk,
// not off airvsx's report.
//
//	blobbytes DIR VAR
func cmdBlobBytes(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: blobbytes DIR VAR")
	}
	var total int64
	err := filepath.WalkDir(filepath.Join(ts.MkAbs(args[0]), "extensions"), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() && filepath.Base(filepath.Dir(p)) == "sha256" && !strings.HasPrefix(d.Name(), ".tmp-") {
			fi, err := d.Info()
			if err != nil {
				return err
			}
			total += fi.Size()
		}
		return nil
	})
	ts.Check(err)
	ts.Setenv(args[1], strconv.FormatInt(total, 10))
}

// cmdSameInt fails unless A and B are the same integer.
//
//	sameint A B
func cmdSameInt(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: [!] sameint A B")
	}
	if same := args[0] == args[1]; same == neg {
		ts.Fatalf("sameint %s %s: %v; want %v", args[0], args[1], same, !neg)
	}
}

// cmdSub sets VAR to A minus B (integers).
//
//	sub VAR A B
func cmdSub(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: sub VAR A B")
	}
	a, err := strconv.ParseInt(args[1], 10, 64)
	ts.Check(err)
	b, err := strconv.ParseInt(args[2], 10, 64)
	ts.Check(err)
	ts.Setenv(args[0], strconv.FormatInt(a-b, 10))
}
