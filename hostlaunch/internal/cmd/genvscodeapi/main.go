// Command genvscodeapi writes the data of package hostlaunch/vscodeapi:
//
//	go run ./hostlaunch/internal/cmd/genvscodeapi -api
//
// fetches @types/vscode at the host's API version (npm pack into a
// temporary directory; nothing from npm is kept) and writes api.json: the
// run-time names of module 'vscode' (namespaces, classes, enums,
// functions, variables) and the members of its namespaces, identifiers
// only. -types FILE reads a local index.d.ts instead of running npm.
//
//	go run ./hostlaunch/internal/cmd/genvscodeapi -surface
//
// (also "go generate ./hostlaunch/vscodeapi") runs node on the host's
// vscode module and writes surface.json: the names of api.json the host
// implements. Run it whenever hostlaunch/host/js changes; the test
// TestSurfaceCurrent in hostlaunch/host fails until then.
//
// -dir DIR writes into DIR instead of hostlaunch/vscodeapi (found from
// the working directory, which must be in the module).
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"

	"github.com/airvsx/airvsx/hostlaunch/host"
	"github.com/airvsx/airvsx/hostlaunch/install"
	"github.com/airvsx/airvsx/hostlaunch/vscodeapi"
)

func main() {
	api := flag.Bool("api", false, "write api.json from @types/vscode (npm pack)")
	types := flag.String("types", "", "with -api: read this index.d.ts instead of running npm")
	surface := flag.Bool("surface", false, "write surface.json by running node on the host's vscode module")
	dir := flag.String("dir", "", "the directory to write (default: hostlaunch/vscodeapi of the module)")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, *api, *types, *surface, *dir); err != nil {
		fmt.Fprintln(os.Stderr, "genvscodeapi:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, api bool, types string, surface bool, dir string) error {
	if !api && !surface {
		return errors.New("nothing to do: give -api, -surface or both")
	}
	if dir == "" {
		root, err := moduleRoot(ctx)
		if err != nil {
			return err
		}
		dir = filepath.Join(root, "hostlaunch", "vscodeapi")
	}
	if api {
		names, err := readAPI(ctx, types)
		if err != nil {
			return err
		}
		if err := writeJSON(filepath.Join(dir, vscodeapi.APIFile), names); err != nil {
			return err
		}
	}
	if surface {
		// Run against the api.json just written, if any: the guard and
		// the surface both read it.
		data, err := os.ReadFile(filepath.Join(dir, vscodeapi.APIFile))
		if err != nil {
			return err
		}
		s, err := host.APISurface(ctx, data)
		if err != nil {
			return err
		}
		if err := writeJSON(filepath.Join(dir, vscodeapi.SurfaceFile), s); err != nil {
			return err
		}
	}
	return nil
}

// readAPI parses index.d.ts: the file types names, or the one of
// @types/vscode@<install.APIVersion> that npm pack fetches.
func readAPI(ctx context.Context, types string) (*apiNames, error) {
	if types == "" {
		tmp, err := os.MkdirTemp("", "genvscodeapi-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(tmp)
		spec := "@types/vscode@" + install.APIVersion
		cmd := exec.CommandContext(ctx, "npm", "pack", "--silent", spec)
		cmd.Dir = tmp
		cmd.Stderr = os.Stderr
		out, err := cmd.Output()
		if err != nil {
			return nil, fmt.Errorf("npm pack %s: %w", spec, err)
		}
		tgz := strings.TrimSpace(string(out))
		tar := exec.CommandContext(ctx, "tar", "-xzf", tgz)
		tar.Dir = tmp
		tar.Stderr = os.Stderr
		if err := tar.Run(); err != nil {
			return nil, fmt.Errorf("unpack %s: %w", tgz, err)
		}
		// The tarball's top folder is "vscode" (npm's usual is "package").
		for _, top := range []string{"vscode", "package"} {
			if p := filepath.Join(tmp, top, "index.d.ts"); fileExists(p) {
				types = p
				break
			}
		}
		if types == "" {
			return nil, fmt.Errorf("%s: no index.d.ts in %s", spec, tgz)
		}
	}
	src, err := os.ReadFile(types)
	if err != nil {
		return nil, err
	}
	names, err := parseDTS(src)
	if err != nil {
		return nil, fmt.Errorf("parse %s: %w", types, err)
	}
	names.Version = install.APIVersion
	return names, nil
}

func fileExists(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}

// moduleRoot is the directory of the go.mod of the working directory.
func moduleRoot(ctx context.Context) (string, error) {
	out, err := exec.CommandContext(ctx, "go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	mod := strings.TrimSpace(string(out))
	if mod == "" || mod == os.DevNull {
		return "", errors.New("not in a Go module: run from the airvsx module or give -dir")
	}
	return filepath.Dir(mod), nil
}

// writeJSON writes v indented, through a temporary file renamed into
// place.
func writeJSON(name string, v any) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("encode %s: %w", name, err)
	}
	tmp := name + ".tmp"
	if err := os.WriteFile(tmp, b.Bytes(), 0o644); err != nil {
		return err
	}
	if err := os.Rename(tmp, name); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}
