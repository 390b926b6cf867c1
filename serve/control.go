package serve

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/index/control"
	"github.com/airvsx/airvsx/index/trust"
)

// ControlPath is the path the server answers the extension control list
// at: the controlUrl an editor's product.json (extensionsGallery) names.
const ControlPath = "/control.json"

// controlList is the control list as served at ControlPath: the one
// list's stored bytes when the registry carries exactly one, the lists
// merged in VS Code's format when it carries several, and the empty list
// {"malicious":[]} when it carries none.
type controlList struct {
	data []byte
	etag string // a strong ETag: the quoted sha256 of data
}

// readControl reads the control lists head pins through chain (the chain
// that verified it), as verify does: a list that is missing, changed or
// does not parse makes the registry not verify.
func readControl(ctx context.Context, chain *trust.Trusted, head *index.Catalog) (*control.Set, error) {
	files, err := chain.Control(ctx, head)
	if err != nil {
		return nil, fmt.Errorf("read the catalog's control lists: %w", err)
	}
	set, err := control.Load(files...)
	if err != nil {
		return nil, fmt.Errorf("read the catalog's control lists: %w", err)
	}
	return set, nil
}

// newControlList encodes set once for the control URL.
func newControlList(set *control.Set) (controlList, error) {
	b, err := set.Bytes()
	if err != nil {
		return controlList{}, fmt.Errorf("encode the control lists: %w", err)
	}
	return controlList{data: b, etag: `"` + index.DigestBytes(b) + `"`}, nil
}

// controlJSON answers GET ControlPath with the control list of the
// snapshot being served, byte for byte, with conditional requests on its
// ETag.
func (s *Server) controlJSON(w http.ResponseWriter, r *http.Request) {
	sn := s.acquire()
	defer sn.release()
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("ETag", sn.list.etag)
	h.Set("Cache-Control", "no-cache")
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(sn.list.data))
}

// malicious answers a request for an extension the control lists name
// malicious: code (404 for its metadata, 410 for its bytes) and the
// verdict, as JSON {"error": ...} when asJSON (the Open VSX API) else as
// text. It reports false, answering nothing, when the extension is not
// banned.
func (s *Server) malicious(w http.ResponseWriter, r *http.Request, sn *snapshot, ns, name string, code int, asJSON bool) bool {
	v, ok := sn.banned[index.ID{Namespace: ns, Name: name}.Key()]
	if !ok {
		return false
	}
	msg := fmt.Sprintf("Extension %s.%s is %s: it is not served", ns, name, v)
	if v.LearnMore != "" {
		msg += " (learn more: " + v.LearnMore + ")"
	}
	if asJSON {
		jsonError(w, r, code, "%s", msg)
	} else {
		httpError(w, code, "%s", msg)
	}
	return true
}
