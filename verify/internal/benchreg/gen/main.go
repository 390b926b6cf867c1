// Command gen makes a benchmark registry (see package benchreg):
//
//	go run ./verify/internal/benchreg/gen -out DIR -key PREFIX [-entries 400] [-size 5242880] [-signed] [-workers N] [-progress]
//	go run ./verify/internal/benchreg/gen -out DIR -key PREFIX -add N -first M [-size S] [-versions V]
//
// It writes the signing key to PREFIX.key (unencrypted: sync reads it
// with an empty COSIGN_PASSWORD) and its public half to PREFIX.pub.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"time"

	"github.com/airvsx/airvsx/verify/internal/benchreg"
)

func main() {
	out := flag.String("out", "", "the registry directory to create")
	key := flag.String("key", "", "where to write the signing key's PREFIX.key and PREFIX.pub")
	entries := flag.Int("entries", 400, "entries")
	size := flag.Int64("size", 5<<20, "random bytes per vsix")
	versions := flag.Int("versions", 1, "entries (versions) of each extension: entries share a repository")
	signed := flag.Bool("signed", false, "sign every vsix as Open VSX does")
	workers := flag.Int("workers", 0, "entries written at once (default GOMAXPROCS, at least 2)")
	add := flag.Int("add", 0, "add this many entries of new extensions to the registry at -out (made by gen with -key), numbered from -first, and sign the next serial")
	first := flag.Int("first", 0, "with -add: the number of the first entry added (the entries the registry holds)")
	progress := flag.Bool("progress", false, "print how many entries are written on stderr every 10,000")
	flag.Parse()
	if *out == "" || *key == "" {
		fmt.Fprintln(os.Stderr, "gen: -out and -key are required")
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	o := benchreg.Options{Entries: *entries, Size: *size, Versions: *versions, Signed: *signed, Workers: *workers}
	start := time.Now()
	if *progress {
		o.Progress = func(done int) {
			if done%10000 == 0 {
				fmt.Fprintf(os.Stderr, "gen: %d entries in %.0f s\n", done, time.Since(start).Seconds())
			}
		}
	}
	if *add > 0 {
		o.Entries = *add
		if err := benchreg.Add(ctx, *out, *key, *first, o); err != nil {
			fmt.Fprintln(os.Stderr, "gen:", err)
			os.Exit(1)
		}
		fmt.Printf("registry %s: %d entries added in %.1f s\n", *out, *add, time.Since(start).Seconds())
		return
	}
	res, err := benchreg.Make(ctx, *out, *key, o)
	if err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
	fmt.Printf("registry %s: %d entries, %d vsix bytes in %.1f s; key %s\n", *out, *entries, res.Bytes, time.Since(start).Seconds(), res.PubKey)
}
