package payouts

// MessageStatus is where a message the service sends stands: queued (recorded, not yet taken by
// a provider, or waiting for another try), sent (a provider took it), delivered (the provider
// reports it reached the recipient) or failed (refused for good, or reported undelivered).
type MessageStatus string

const (
	MessageQueued    MessageStatus = "queued"
	MessageSent      MessageStatus = "sent"
	MessageDelivered MessageStatus = "delivered"
	MessageFailed    MessageStatus = "failed"
)

// MessagePurpose is why a message was sent.
type MessagePurpose string

const (
	PurposePayoutLink MessagePurpose = "payout_link"
	PurposeCode       MessagePurpose = "verification_code"
)

// Message is ours: a message sent to a payee, as GET /v2/users/{user_id}/messages lists it. Its
// content (a claim link, a code) is never shown, only where it went and what became of it.
type Message struct {
	ID           string         `json:"id"`
	Created      Time           `json:"created"`
	Updated      Time           `json:"updated"`
	Channel      string         `json:"channel"` // sms, voice or email
	To           string         `json:"to"`
	Purpose      MessagePurpose `json:"purpose"`
	PayoutLinkID string         `json:"payout_link_id,omitempty"`
	Status       MessageStatus  `json:"status"`
	Attempts     int            `json:"attempts"`
	// Error says why the last try failed, or why the provider reports it undelivered.
	Error string `json:"error,omitempty"`
}
