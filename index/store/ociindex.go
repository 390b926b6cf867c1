package store

// EncodeIndex returns the canonical index.json of an OCI image layout
// holding tags, as Dir writes it: compact JSON, one descriptor per tag
// (its name in org.opencontainers.image.ref.name), sorted by tag. Stores
// that keep the directory store's tree (the git store) use it.
func EncodeIndex(tags []TagEntry) ([]byte, error) { return encodeIndex(tags) }

// DecodeIndex reads an index.json strictly, as Dir does, and returns its
// tags sorted: every descriptor must carry a valid tag, no tag twice.
func DecodeIndex(data []byte) ([]TagEntry, error) { return decodeIndex(data) }
