package main

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/airvsx/airvsx/index/store/gitstore"
	"github.com/airvsx/airvsx/index/trust"
)

type keygenOptions struct {
	out  string
	json bool
}

func newKeygenCommand(g *globals) *cobra.Command {
	var opts keygenOptions
	cmd := &cobra.Command{
		Use: "keygen --out PREFIX",
		Example: `  # writes airvsx.key (encrypted with COSIGN_PASSWORD, or a password it asks for) and airvsx.pub
  airvsx keygen --out airvsx`,
		Short: "Write a new ECDSA P-256 signing key pair in cosign's format",
		Long: `Keygen writes PREFIX.key, an ECDSA P-256 private key encrypted in cosign's
format, and PREFIX.pub, its public key. It never overwrites an existing
file. An existing cosign.key works wherever airvsx asks for a key.

The password is COSIGN_PASSWORD's when it is set, even to "" (no
password). When it is not set and stdin is a terminal, keygen asks for the
password twice; when it is not set and there is no terminal, the key is
encrypted with an empty password and keygen says so on stderr.

It also prints the key's line for an SSH allowed-signers file, with which
stock git verifies the signed commits of a git registry:
  git -c gpg.format=ssh -c gpg.ssh.allowedSignersFile=FILE verify-commit HEAD`,
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
			signer, err := allowedSignerLine(pubPath)
			if err != nil {
				return fmt.Errorf("keygen: %w", err)
			}
			if opts.json {
				return json.NewEncoder(g.stdout).Encode(map[string]string{"privateKey": keyPath, "publicKey": pubPath, "sshAllowedSigner": signer})
			}
			fmt.Fprintf(g.stdout, "private key: %s\npublic key:  %s\n", keyPath, pubPath)
			fmt.Fprintf(g.stdout, "git allowed signer (for git verify-commit of git:PATH registries):\n%s\n", signer)
			return nil
		},
	}
	cmd.Flags().StringVar(&opts.out, "out", "", "path prefix of the key files (PREFIX.key, PREFIX.pub)")
	cmd.Flags().BoolVar(&opts.json, "json", false, "print as JSON")
	return cmd
}

// allowedSignerLine returns the SSH allowed-signers line of the public
// key in pubPath, principal "airvsx": with git's gpg.format=ssh and
// gpg.ssh.allowedSignersFile naming a file holding it, stock git verifies
// the commits of a git registry.
func allowedSignerLine(pubPath string) (string, error) {
	v, err := trust.LoadVerifier(pubPath)
	if err != nil {
		return "", err
	}
	pub, err := v.PublicKey()
	if err != nil {
		return "", err
	}
	return gitstore.AllowedSigner("airvsx", pub)
}
