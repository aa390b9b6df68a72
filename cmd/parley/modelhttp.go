package main

import (
	"net/http"
	"strings"
)

// modelClients are the HTTP clients Parley reaches its model servers with:
// one for those over HTTPS, one for those over plain HTTP. A server over
// plain HTTP (Ollama, llama.cpp, vLLM on the host or the LAN) speaks
// HTTP/1.1, so every turn streaming at once holds a connection of its
// own, and each idle one keeps two goroutines and their buffers: after
// 200 answers in 50 chats, 14 of them held ~0.3 MiB (docs/footprint.md).
// The trimmer closes those when Parley goes quiet; dialling one again is a
// TCP handshake on the host or the LAN. Connections to HTTPS servers stay:
// they multiplex on one HTTP/2 connection, and closing it would cost the
// next message a TLS handshake to a distant API.
type modelClients struct {
	https, plain *http.Client
}

func newModelClients(o *operator) modelClients {
	return modelClients{https: o.modelClient(), plain: o.modelClient()}
}

// For is the client of the model server at baseURL (empty: the provider's
// own API, over HTTPS).
func (m modelClients) For(baseURL string) *http.Client {
	if plainHTTP(baseURL) {
		return m.plain
	}
	return m.https
}

// CloseIdleConnections closes the idle connections to servers over plain
// HTTP.
func (m modelClients) CloseIdleConnections() { m.plain.CloseIdleConnections() }

func plainHTTP(baseURL string) bool {
	return len(baseURL) >= len("http://") && strings.EqualFold(baseURL[:len("http://")], "http://")
}
