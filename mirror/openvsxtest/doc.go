// Package openvsxtest is an httptest server that speaks the Open VSX API
// from fixtures, with fault injection per path, for tests and the offline
// demo.
package openvsxtest
