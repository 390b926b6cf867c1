package host

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/airvsx/airvsx/hostlaunch/vscodeapi"
)

//go:embed surface.js
var surfaceJS []byte

// APISurface runs node ("node" on PATH) on the host's vscode module with
// apiJSON (the content of vscodeapi's api.json) and returns which of its
// names the module implements: the content of vscodeapi's surface.json,
// which hostlaunch/internal/cmd/genvscodeapi writes.
func APISurface(ctx context.Context, apiJSON []byte) (*vscodeapi.Surface, error) {
	node, err := exec.LookPath("node")
	if err != nil {
		return nil, fmt.Errorf("api surface: %w", err)
	}
	td, err := writeHostWith("", apiJSON, nil)
	if err != nil {
		return nil, fmt.Errorf("api surface: %w", err)
	}
	defer td.Remove()
	script := filepath.Join(td.Path, "surface.js")
	if err := os.WriteFile(script, surfaceJS, 0o400); err != nil {
		return nil, fmt.Errorf("api surface: %w", err)
	}
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, node, script)
	cmd.Dir = td.Path
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("api surface: node %s: %w\n%s", script, err, bytes.TrimSpace(stderr.Bytes()))
	}
	var s vscodeapi.Surface
	if err := json.Unmarshal(stdout.Bytes(), &s); err != nil {
		return nil, fmt.Errorf("api surface: node %s printed no surface: %w", script, err)
	}
	return &s, nil
}
