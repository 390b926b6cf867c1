package main

import (
	"strings"
	"testing"
)

// TestExamplesParse: every command shows examples in its --help, and
// each example line names a command airvsx has, with flags it takes and
// as many arguments as it accepts (a line may run another command first,
// as sync's runs keygen). A new user copies these lines first.
func TestExamplesParse(t *testing.T) {
	root := newRootCommand(&globals{})
	for _, c := range root.Commands() {
		if c.Name() == "help" || c.Name() == "completion" {
			continue
		}
		t.Run(c.Name(), func(t *testing.T) {
			if c.Example == "" {
				t.Fatalf("airvsx %s --help shows no example", c.Name())
			}
			n := 0
			for line := range strings.Lines(c.Example) {
				fields := strings.Fields(line)
				// Leading NAME=VALUE words set the environment.
				for len(fields) > 0 && strings.Contains(fields[0], "=") {
					fields = fields[1:]
				}
				if len(fields) == 0 || fields[0] == "#" {
					continue
				}
				if fields[0] != "airvsx" {
					t.Errorf("example %q does not start with airvsx", strings.TrimSpace(line))
					continue
				}
				// A fresh tree for each line: parsing sets flags.
				cmd, args, err := newRootCommand(&globals{}).Find(fields[1:])
				if err != nil {
					t.Errorf("example %q: %v", strings.TrimSpace(line), err)
					continue
				}
				if cmd.Name() == c.Name() {
					n++
				}
				if err := cmd.ParseFlags(args); err != nil {
					t.Errorf("example %q: %v", strings.TrimSpace(line), err)
					continue
				}
				if err := cmd.ValidateArgs(cmd.Flags().Args()); err != nil {
					t.Errorf("example %q: %v", strings.TrimSpace(line), err)
				}
			}
			if n == 0 {
				t.Errorf("airvsx %s --help has no example that runs it", c.Name())
			}
		})
	}
}
