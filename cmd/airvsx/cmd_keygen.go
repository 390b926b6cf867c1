package main

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/airvsx/airvsx/index/trust"
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
format, and PREFIX.pub, its public key. It never overwrites an existing
file. An existing cosign.key works wherever airvsx asks for a key.

The password is COSIGN_PASSWORD's when it is set, even to "" (no
password). When it is not set and stdin is a terminal, keygen asks for the
password twice; when it is not set and there is no terminal, the key is
encrypted with an empty password and keygen says so on stderr.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if opts.out == "" {
				return usagef("keygen: --out PREFIX is required")
			}
			if err := trust.CheckKeyPrefix(opts.out); err != nil {
				return usagef("keygen: --out: %v", err)
			}
			// Refuse an existing key before asking for a password for
			// nothing; WriteKeyPair checks again, atomically.
			for _, p := range []string{opts.out + trust.KeySuffix, opts.out + trust.PubSuffix} {
				if _, err := os.Lstat(p); err == nil {
					return fmt.Errorf("keygen: %s: %w", p, os.ErrExist)
				}
			}
			pw, defaulted, err := newKeyPassword(os.LookupEnv, g.stdin, g.stderr)
			if err != nil {
				return fmt.Errorf("keygen: %w", err)
			}
			keyPath, pubPath, err := trust.WriteKeyPair(opts.out, pw)
			if err != nil {
				return fmt.Errorf("keygen: %w", err)
			}
			if defaulted {
				fmt.Fprintf(g.stderr, "airvsx: keygen: %s is not set: %s is encrypted with an empty password; set %s=… to choose one\n",
					passwordEnv, keyPath, passwordEnv)
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
