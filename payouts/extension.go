package payouts

import "slices"

// Extension names one group of routes or query parameters that our service adds to the public
// Dots API. GET /v2/extensions lists those a server offers; the public service has no such route
// (404), which means it offers none. A client uses an extension only when the server names it.
type Extension string

// The extensions our service offers (docs/API.md, "Extensions beyond the public API").
const (
	ExtStats               Extension = "stats"                 // GET /v2/apps/{id}/stats
	ExtEvents              Extension = "events"                // GET /v2/events, /v2/events/{id}
	ExtWebhookEndpoints    Extension = "webhook-endpoints"     // /v2/webhook-endpoints...
	ExtIDLookup            Extension = "id-lookup"             // GET /v2/id-lookup
	ExtSandboxMessages     Extension = "sandbox-messages"      // GET /v2/sandbox/messages (sandbox mode only)
	ExtSummaries           Extension = "summaries"             // GET /v2/transfers/summary, /v2/transactions/summary
	ExtUserFilters         Extension = "user-filters"          // GET /v2/users: status, search
	ExtTransferFilters     Extension = "transfer-filters"      // GET /v2/transfers: type, status, created_*, amount_*
	ExtTransactionFilters  Extension = "transaction-filters"   // GET /v2/transactions: user_id, type, status, created_*, amount_*
	ExtEventFilters        Extension = "event-filters"         // GET /v2/events: created_*
	ExtPayoutLinkFilters   Extension = "payout-link-filters"   // GET /v2/payout-links: status, search, amount
	ExtFlowFilters         Extension = "flow-filters"          // GET /v2/flows: user_id
	ExtPayoutRequestQueue  Extension = "payout-request-queue"  // GET /v2/payout-requests: status, order; /count
	ExtTransferReview      Extension = "transfer-review"       // POST /v2/transfers/{id}/review
	ExtPayoutRequestReview Extension = "payout-request-review" // POST /v2/payout-requests/{id}/review
	ExtPreflight           Extension = "preflight"             // POST /v2/payouts/preflight, /preflight-batch
	ExtAppsEnvelope        Extension = "apps-envelope"         // GET /v2/apps?envelope=true: {has_more, data}
	ExtStatements          Extension = "statements"            // GET /v2/statement: a wallet over a period
	ExtReconciliation      Extension = "reconciliation"        // GET /v2/reconciliation
	ExtRails               Extension = "rails"                 // GET /v2/rails: the rail of each platform
	ExtScreening           Extension = "screening"             // GET /v2/users/{id}/screening; reviewer on a review
	ExtTaxForms            Extension = "tax-forms"             // /v2/tax-years/{year}/..., /v2/tax-forms/{id}/pdf, /v2/users/{id}/tax-years/{year}, /tax-forms
	ExtMessages            Extension = "messages"              // GET /v2/users/{id}/messages, POST /v2/payout-links/{id}/resend and /contact
	ExtAPIKeys             Extension = "api-keys"              // GET, POST /v2/apps/{id}/api-keys, POST .../api-keys/{key_id}/revoke
)

// Extensions is the answer of GET /v2/extensions: the names of the extensions the server offers.
// The zero value, what a server without that route means, offers none.
type Extensions struct {
	Extensions []Extension `json:"extensions"`
}

// Has reports whether the server offers e.
func (x Extensions) Has(e Extension) bool { return slices.Contains(x.Extensions, e) }

// Ours reports whether the server is our service, which names its extensions: its objects then
// carry the extra fields docs/API.md lists (an app's wallet, a user's default method), which
// the public API never sends.
func (x Extensions) Ours() bool { return len(x.Extensions) > 0 }
