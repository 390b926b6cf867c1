package host

// Flow control: the launcher runs outside every sandbox layer, so what a
// host can make it hold is bounded. Each broker has a limit on the
// requests of one host in flight, and all of a host's brokers share a
// bound on the bytes they hold (requests' parameters, files read,
// response bodies, programs' output). A request past either is refused at
// once with an error the extension sees (ERR_AIRVSX_BUSY); it is never
// queued.

import (
	"fmt"
	"sync"
)

// MaxBuffered is what the brokers of one host may hold at once, in bytes.
const MaxBuffered = 64 << 20

// broker is one of the launcher's brokers: its name in messages and audit
// records, and how many requests of one host it serves at once.
type broker struct {
	name     string
	inFlight int
}

// The brokers and their limits per host.
var (
	fsBroker    = broker{"workspace.fs", 32}
	fetchBroker = broker{"fetch", 8}
	// Each spawn request holds a running program: at most 4 at once.
	spawnBroker = broker{"spawn", 4}
	killBroker  = broker{"spawn/kill", 32}
	// Each spawn/start holds a streamed program for its whole life (a
	// language server's is the session's): at most 8 at once.
	streamBroker = broker{"spawn stream", 8}
	// spawn/write and spawn/end wait for the program to take its input.
	writeBroker = broker{"spawn/write", 32}
	// uiBroker: the questions waiting for the user (ui.go).
	uiBroker = broker{"ui", 4}
)

// codeBusy is the JSON-RPC error code of a request refused for a limit;
// the host turns it into an ERR_AIRVSX_BUSY error.
const codeBusy = -32003

// busyError is a request refused because a limit is reached.
type busyError struct{ Msg string }

func (e *busyError) Error() string { return e.Msg }

// flow is the flow control of one host.
type flow struct {
	max int64 // MaxBuffered, or less in tests

	mu       sync.Mutex
	held     int64          // bytes held now
	inFlight map[string]int // requests in flight by broker
}

func newFlow(max int64) *flow { return &flow{max: max, inFlight: map[string]int{}} }

// admit lets one request of b in, holding cost bytes, or refuses it with
// a *busyError. The request calls done when it has been answered, which
// also gives back what grow added.
func (f *flow) admit(b broker, cost int64) (*ticket, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.inFlight[b.name] >= b.inFlight {
		return nil, &busyError{Msg: fmt.Sprintf("airvsx: the %s broker is serving %d requests of this extension host already, its limit: refused; wait for some to finish before asking more", b.name, b.inFlight)}
	}
	if f.held+cost > f.max {
		return nil, f.full(b, cost)
	}
	f.inFlight[b.name]++
	f.held += cost
	return &ticket{f: f, b: b, held: cost}, nil
}

// full is the refusal of n more bytes.
func (f *flow) full(b broker, n int64) error {
	return &busyError{Msg: fmt.Sprintf("airvsx: the %s broker cannot hold %d more bytes: the brokers hold %d of the %d bytes one extension host may have in flight; refused, wait for some requests to finish", b.name, n, f.held, f.max)}
}

// ticket is one admitted request; its fields are guarded by f.mu.
type ticket struct {
	f    *flow
	b    broker
	held int64
	done bool
}

// grow holds n more bytes for the request (a file read, a body as it
// arrives), or refuses with a *busyError.
func (t *ticket) grow(n int64) error {
	t.f.mu.Lock()
	defer t.f.mu.Unlock()
	if t.f.held+n > t.f.max {
		return t.f.full(t.b, n)
	}
	t.f.held += n
	t.held += n
	return nil
}

// finish gives back everything the request held; once.
func (t *ticket) finish() {
	t.f.mu.Lock()
	defer t.f.mu.Unlock()
	if t.done {
		return
	}
	t.done = true
	t.f.held -= t.held
	t.f.inFlight[t.b.name]--
}
