package main

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
)

// unbuilt are commands airvsx does not have yet. No help text may offer
// them: a new user would type them and get "unknown command".
var unbuilt = []string{"exec"}

// helpTexts returns the --help output of the root command and of every
// subcommand, by command path.
func helpTexts(t *testing.T) map[string]string {
	t.Helper()
	texts := make(map[string]string)
	paths := [][]string{{}}
	for _, c := range newRootCommand(&globals{}).Commands() {
		paths = append(paths, []string{c.Name()})
	}
	for _, p := range paths {
		var stdout, stderr bytes.Buffer
		args := append(append([]string{}, p...), "--help")
		if code := run(t.Context(), args, strings.NewReader(""), &stdout, &stderr); code != exitOK {
			t.Fatalf("airvsx %s: exit %d; stderr:\n%s", strings.Join(args, " "), code, stderr.String())
		}
		texts[strings.Join(append([]string{"airvsx"}, p...), " ")] = stdout.String()
	}
	return texts
}

func TestHelpOffersOnlyCommandsThatExist(t *testing.T) {
	rootCmd := newRootCommand(&globals{})
	commands := map[string]bool{}
	for _, c := range rootCmd.Commands() {
		commands[c.Name()] = true
	}
	texts := helpTexts(t)
	for _, tc := range []struct {
		name string
		re   *regexp.Regexp
	}{
		{"airvsx VERB", regexp.MustCompile(`\bairvsx\s+(` + strings.Join(unbuilt, "|") + `)\b`)},
		{"quoted VERB", regexp.MustCompile(`"(` + strings.Join(unbuilt, "|") + `)\b`)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for cmd, text := range texts {
				if m := tc.re.FindString(text); m != "" {
					t.Errorf("%s --help offers %q, which airvsx cannot do yet", cmd, m)
				}
			}
		})
	}
	// The root help's description names commands in quotes; each must
	// exist.
	for _, m := range regexp.MustCompile(`"([a-z]+)[ "]`).FindAllStringSubmatch(rootCmd.Long, -1) {
		if !commands[m[1]] {
			t.Errorf("airvsx --help names %q, which is not a command", m[1])
		}
	}
}
