// Package site renders a registry's signed catalog into a static HTML
// catalog that works from file:// and from any static web server.
package site
