// Package client is a typed Go client for the /v2 payouts API: the disburse Payout Service or
// any service compatible with it, the public Dots service included. The operator dashboard talks
// to the Payout Service only through this package.
//
// # Making a client
//
// The base URL is the one /v2 paths are appended to, with any prefix the service has:
//
//	c, err := client.New("http://127.0.0.1:8081/api",
//		client.WithCredentials(clientID, apiKey))
//
// Options set HTTP Basic credentials, the *http.Client, a per-attempt timeout, the User-Agent,
// the Api-App-Id header and the RetryPolicy. A Client is safe for concurrent use.
//
// # Methods
//
// There is one method per endpoint, in a file named after its noun (user.go, transfer.go, ...),
// each taking a context.Context and the request and entity types of package payouts. Names
// follow one rule:
//
//   - CreateX, GetX, UpdateX, DeleteX for the create, read, update and delete of X;
//   - ListXs for one page of a list (a payouts.Page and the list's filter), AllXs for an
//     iterator over every page (iter.Seq2[X, error]; pages of 100, following has_more and the
//     last id);
//   - any other endpoint is named by what it does: AddPayoutMethod, ListPayoutMethods (a bare
//     array: the API does not paginate it), SubmitCompliance, SendVerificationToken, VerifyUser,
//     CancelPayoutLink, Deposit, and ReviewTransfer (our extension for flagged transfers).
//
// GetAppStats and ReviewTransfer call endpoints that are extensions of ours; against the public
// service they answer 404.
//
// Methods whose endpoint answers without a body return only an error. A method answering an
// object accepts 200, 201 or 202, ignores unknown fields and nulls, and reads amounts written as
// numbers or numeric strings and timestamps with or without a zone (see payouts.Money and
// payouts.Time).
//
// # Errors
//
// Every answer outside 2xx is returned as a *payouts.Error with the HTTP Status, a Code (from
// the body, or from the status when the body names none: 401 unauthorized, 404 not-found, 5xx
// internal, ...), a Message, the Fields of a validation failure and the raw Body. Use errors.As,
// or payouts.ErrorCode(err). Network failures are returned wrapped, so errors.Is finds
// context.DeadlineExceeded and the like.
//
// # Retries and idempotency
//
// Only requests that are safe to repeat are retried: GETs, and requests whose body carries an
// idempotency key (CreateTransfer, CreatePayout, CreatePayoutLink, Deposit). Those four fill in
// a fresh random key when the caller gives none, and every attempt sends the same bytes, so a
// retry after a lost answer returns the original object instead of paying twice. Pass your own
// IdempotencyKey to make a call safe to repeat across processes too. Retries happen on network
// errors, 429 (honouring Retry-After), 5xx and 409 resource-busy, with exponential backoff and
// jitter (see RetryPolicy). Other writes are sent once: after a network error their outcome is
// unknown, and the caller should look before trying again.
package client
