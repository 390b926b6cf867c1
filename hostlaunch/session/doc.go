// Package session assembles what running installed extensions takes, for
// the commands that run them (airvsx run and airvsx host --stdio): it
// loads the extensions directory (its records' seals and files checked,
// install.Load), probes the kernel sandbox and records how it isolates
// (install.RecordIsolation), wires the brokers (spawn through the sandbox,
// fetch through the Fetcher the caller gives, every brokered request to
// the audit log), and starts the pool of extension hosts under
// supervision (an extension whose activation brings its host down twice
// in a row is disabled in installed.json). Close stops the hosts, records
// the activations and removes what was temporary.
//
// The package never opens a network connection: the fetch broker
// (hostlaunch/netbroker) is the caller's to wire in (Options.Fetch), so
// that only the binary links a network client.
//
// Open's errors are the failing step's own, unwrapped (a caller adds its
// command's name); ErrNothingInstalled and *SandboxError let a caller add
// what the user should do next in its own words.
package session
