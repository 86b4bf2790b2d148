package payouts

// SandboxMessage is an SMS or email the sandbox kept instead of sending it: an item of GET
// /v2/sandbox/messages, which exists only in sandbox mode. Ours, not in API.md.
type SandboxMessage struct {
	ID      string `json:"id"`
	Created Time   `json:"created"`
	Channel string `json:"channel"` // sms, voice or email
	To      string `json:"to"`
	Subject string `json:"subject"`
	Body    string `json:"body"`
}
