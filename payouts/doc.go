// Package payouts is the vocabulary of disburse: the entities of the /v2 wire format, money in
// integer cents, statuses and their transitions, list and request types, and the one Error type
// every layer speaks. It imports only the standard library, so the service, the store, the HTTP
// transports and the client can all depend on it without depending on each other.
//
// JSON tags are the wire format of docs/API.md.
package payouts
