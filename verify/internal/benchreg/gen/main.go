// Command gen makes a benchmark registry (see package benchreg):
//
//	go run ./verify/internal/benchreg/gen -out DIR -key PREFIX [-entries 400] [-size 5242880] [-signed]
package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	"github.com/airvsx/airvsx/verify/internal/benchreg"
)

func main() {
	out := flag.String("out", "", "the registry directory to create")
	key := flag.String("key", "", "where to write the signing key's PREFIX.pub")
	entries := flag.Int("entries", 400, "entries")
	size := flag.Int64("size", 5<<20, "random bytes per vsix")
	signed := flag.Bool("signed", false, "sign every vsix as Open VSX does")
	flag.Parse()
	if *out == "" || *key == "" {
		fmt.Fprintln(os.Stderr, "gen: -out and -key are required")
		os.Exit(2)
	}
	res, err := benchreg.Make(context.Background(), *out, *key, benchreg.Options{Entries: *entries, Size: *size, Signed: *signed})
	if err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
	fmt.Printf("registry %s: %d entries, %d vsix bytes; key %s\n", *out, *entries, res.Bytes, res.PubKey)
}
