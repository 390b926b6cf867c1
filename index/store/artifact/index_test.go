package artifact

import (
	"testing"

	"github.com/airvsx/airvsx/index/store"
	"github.com/google/go-cmp/cmp"
)

// FuzzDecodeIndex: an index.json decodeIndex accepts re-encodes to one
// that decodes to the same tags.
func FuzzDecodeIndex(f *testing.F) {
	good, _ := encodeIndex([]store.TagEntry{
		{Tag: "universal-1.0.0", Manifest: store.Descriptor{MediaType: MediaTypeManifest, Digest: EmptyConfigDigest, Size: 2, ArtifactType: ArtifactType}},
		{Tag: "a", Manifest: store.Descriptor{MediaType: MediaTypeIndex, Digest: EmptyConfigDigest, Size: 2, Annotations: map[string]string{"k": "v"}}},
	})
	f.Add(good)
	f.Add([]byte(`{"schemaVersion":2,"mediaType":"application/vnd.oci.image.index.v1+json","manifests":[]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		tags, err := decodeIndex(data)
		if err != nil {
			return
		}
		enc, err := encodeIndex(tags)
		if err != nil {
			t.Fatal(err)
		}
		again, err := decodeIndex(enc)
		if err != nil {
			t.Fatalf("re-encoded index rejected: %v\n%s", err, enc)
		}
		if diff := cmp.Diff(tags, again); diff != "" {
			t.Fatalf("round trip (-first +second):\n%s", diff)
		}
		for _, tg := range tags {
			if store.CheckTag(tg.Tag) != nil || !store.ValidDigest(tg.Manifest.Digest) {
				t.Fatalf("accepted bad tag or digest: %+v", tg)
			}
		}
	})
}
