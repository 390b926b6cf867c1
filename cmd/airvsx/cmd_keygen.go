package main

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/airvsx/airvsx/index/trust"
	"github.com/spf13/cobra"
)

type keygenOptions struct {
	out  string
	json bool
}

func newKeygenCommand(g *globals) *cobra.Command {
	var opts keygenOptions
	cmd := &cobra.Command{
		Use:   "keygen --out PREFIX",
		Short: "Write a new ECDSA P-256 signing key pair in cosign's format",
		Long: `Keygen writes PREFIX.key, an ECDSA P-256 private key encrypted in cosign's
format with the password in COSIGN_PASSWORD (empty is allowed), and
PREFIX.pub, its public key. It never overwrites an existing file. An
existing cosign.key works wherever airvsx asks for a key.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if opts.out == "" {
				return usagef("keygen: --out PREFIX is required")
			}
			keyPath, pubPath, err := trust.WriteKeyPair(opts.out, []byte(os.Getenv("COSIGN_PASSWORD")))
			if err != nil {
				return fmt.Errorf("keygen: %w", err)
			}
			if opts.json {
				return json.NewEncoder(g.stdout).Encode(map[string]string{"privateKey": keyPath, "publicKey": pubPath})
			}
			fmt.Fprintf(g.stdout, "private key: %s\npublic key:  %s\n", keyPath, pubPath)
			return nil
		},
	}
	cmd.Flags().StringVar(&opts.out, "out", "", "path prefix of the key files (PREFIX.key, PREFIX.pub)")
	cmd.Flags().BoolVar(&opts.json, "json", false, "print as JSON")
	return cmd
}
