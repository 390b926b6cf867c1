package host

import (
	"context"
	"encoding/json"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// blockingUI answers every question after release is closed, and counts
// the questions it holds at once.
type blockingUI struct {
	release chan struct{}
	now     atomic.Int32
	most    atomic.Int32
	mu      sync.Mutex
	seen    []Question
}

func (u *blockingUI) Answer(ctx context.Context, q Question) (json.RawMessage, error) {
	n := u.now.Add(1)
	defer u.now.Add(-1)
	for {
		m := u.most.Load()
		if n <= m || u.most.CompareAndSwap(m, n) {
			break
		}
	}
	u.mu.Lock()
	u.seen = append(u.seen, q)
	u.mu.Unlock()
	select {
	case <-u.release:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return json.RawMessage(`{"selected":[0]}`), nil
}

// TestQuestionsBounded: a zero-capability extension that asks a hundred
// quick picks at once gets at most
// four before the user at a time; the rest are dismissed at once (the
// flow control's refusal), and the launcher knows who asked.
func TestQuestionsBounded(t *testing.T) {
	root := t.TempDir()
	ui := &blockingUI{release: make(chan struct{})}
	e := ext(t, root, "a.asker", command("a.asker", `
      const asks = [];
      for (let i = 0; i < 100; i++) asks.push(vscode.window.showQuickPick(['yes', 'no'], { title: 'q' + i }));
      const got = await Promise.all(asks);
      return got.filter((x) => x === 'yes').length;`))
	h := launch(t, root, Options{UI: ui}, e)
	done := make(chan *Result, 1)
	go func() { done <- run(t, h, "a.asker.cmd") }()
	// Let the questions arrive, then answer those held.
	deadline := time.Now().Add(10 * time.Second)
	for ui.now.Load() < 4 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(200 * time.Millisecond)
	close(ui.release)
	var r *Result
	select {
	case r = <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("the command did not finish")
	}
	var yes int
	if err := json.Unmarshal(r.Value, &yes); err != nil {
		t.Fatal(err)
	}
	if m := ui.most.Load(); m > 4 || m < 1 {
		t.Errorf("the UI held %d questions at once; want at most 4", m)
	}
	ui.mu.Lock()
	defer ui.mu.Unlock()
	if yes != len(ui.seen) || yes < 4 || yes >= 100 {
		t.Errorf("%d answered yes, the UI saw %d questions; want every question the UI saw answered, and the flood refused", yes, len(ui.seen))
	}
	for _, q := range ui.seen {
		if q.Extension != "a.asker" || q.Kind != QuickPick {
			t.Errorf("question %+v: want a quick pick from a.asker", q)
		}
	}
}
