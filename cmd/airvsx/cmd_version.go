package main

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// buildInfo says which airvsx this is.
type buildInfo struct {
	Version   string `json:"version"`
	Revision  string `json:"revision,omitempty"`
	Modified  bool   `json:"modified,omitempty"`
	GoVersion string `json:"goVersion"`
	Platform  string `json:"platform"`
}

func readBuildInfo() buildInfo {
	bi := buildInfo{Version: "(devel)", GoVersion: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return bi
	}
	if v := info.Main.Version; v != "" {
		bi.Version = v
	}
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			bi.Revision = s.Value
		case "vcs.modified":
			bi.Modified = s.Value == "true"
		}
	}
	return bi
}

func newVersionCommand(g *globals) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:     "version",
		Example: `  airvsx version --json`,
		Short:   "Print the airvsx version",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			bi := readBuildInfo()
			if asJSON {
				return g.printJSON(bi)
			}
			rev := bi.Revision
			if rev == "" {
				rev = "unknown"
			}
			if bi.Modified {
				rev += "+modified"
			}
			_, err := fmt.Fprintf(g.stdout, "airvsx %s (revision %s, %s, %s)\n", bi.Version, rev, bi.GoVersion, bi.Platform)
			return err
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print as JSON")
	return cmd
}

// userAgent names airvsx and its version, for the requests sync makes.
func userAgent() string {
	bi := readBuildInfo()
	return fmt.Sprintf("airvsx/%s (%s; offline mirror)", bi.Version, bi.Platform)
}
