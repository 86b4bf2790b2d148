package payouts

import (
	"strings"
	"time"
)

// APIKeyOverlap is how long a key replaced by a new one (CreateAPIKeyRequest.Replaces) keeps
// working: a day, for every client to be given the new key before the old one stops.
const APIKeyOverlap = 24 * time.Hour

// APIKeyStatus says whether a key authenticates.
type APIKeyStatus string

const (
	APIKeyActive   APIKeyStatus = "active"   // works, with no end set
	APIKeyExpiring APIKeyStatus = "expiring" // works until expires_at
	APIKeyExpired  APIKeyStatus = "expired"
	APIKeyRevoked  APIKeyStatus = "revoked"
)

// APIKey is one of an app's API keys (extension api-keys). The secret itself is in Key only in
// the answer that made it; afterwards a key is known by its name and last four characters.
type APIKey struct {
	ID         string       `json:"id"`
	Name       string       `json:"name"`
	Last4      string       `json:"last4"`
	Status     APIKeyStatus `json:"status"`
	CreatedBy  string       `json:"created_by"`
	Created    Time         `json:"created"`
	ExpiresAt  *Time        `json:"expires_at"`
	RevokedAt  *Time        `json:"revoked_at"`
	LastUsedAt *Time        `json:"last_used_at"`
	// Current is true for the key the request was made with, which cannot be revoked or
	// replaced through itself: that would lock its caller (the dashboard) out.
	Current bool   `json:"current"`
	Key     string `json:"key,omitempty"`
}

// APIKeyList is an app's keys, newest first.
type APIKeyList struct {
	Data []APIKey `json:"data"`
}

// CreateAPIKeyRequest makes a key. With Replaces, the id of another key of the app, that key
// expires APIKeyOverlap later (or when it was already set to, if sooner): a rotation.
type CreateAPIKeyRequest struct {
	Name      string `json:"name"`
	CreatedBy string `json:"created_by,omitempty"`
	Replaces  string `json:"replaces,omitempty"`
}

// Validate checks the request.
func (r CreateAPIKeyRequest) Validate() error {
	p := Problems{}
	if n := len(strings.TrimSpace(r.Name)); n == 0 || n > 64 {
		p.Add("name", "must be 1 to 64 characters")
	}
	if len(r.CreatedBy) > 200 {
		p.Add("created_by", "must be at most 200 characters")
	}
	if len(r.Replaces) > 64 {
		p.Add("replaces", "is not a key of this app")
	}
	return p.Err()
}
