package service

import (
	"sync"
	"time"
)

// credentialTTL is how long credentials that authenticated are remembered.
const credentialTTL = time.Minute

// credentialsMax bounds how many client ids are remembered; past it the memory starts over.
const credentialsMax = 10_000

// credentials remembers, by client id, the credentials that authenticated, so that a request does
// not read its app's row to check its key: on PostgreSQL that read was one statement in five of a
// transfer's. Of what is kept, the key's hash, the kind and the ids never change once an app is
// written, since no key is ever rotated or revoked; an app's organization changes only when
// AdoptApps gives it one, which forgets what this process remembered. The minute bounds what such
// a change (or a future rotation) waits for in another process. Credentials that failed are never
// remembered, so a guess costs a read and a hash as before.
type credentials struct {
	mu   sync.Mutex
	byID map[string]rememberedCredential
}

type rememberedCredential struct {
	app   AppRecord // only ID, Kind, OrganizationID, ClientID and KeyHash
	until time.Time
}

func newCredentials() *credentials {
	return &credentials{byID: map[string]rememberedCredential{}}
}

// get returns the app record remembered for clientID, unless it is older than credentialTTL.
func (c *credentials) get(clientID string, now time.Time) (*AppRecord, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	r, ok := c.byID[clientID]
	if !ok || !now.Before(r.until) {
		return nil, false
	}
	app := r.app
	return &app, true
}

// remember keeps what Authenticate needs of rec, which just authenticated.
func (c *credentials) remember(rec *AppRecord, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.byID) >= credentialsMax {
		clear(c.byID)
	}
	c.byID[rec.ClientID] = rememberedCredential{until: now.Add(credentialTTL), app: AppRecord{ID: rec.ID,
		Kind: rec.Kind, OrganizationID: rec.OrganizationID, ClientID: rec.ClientID, KeyHash: rec.KeyHash}}
}

// forget drops every remembered credential, after a change to what they keep.
func (c *credentials) forget() {
	c.mu.Lock()
	defer c.mu.Unlock()
	clear(c.byID)
}
