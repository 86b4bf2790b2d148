package service

import (
	"sync"
	"time"
)

// credentialTTL is how long credentials that authenticated are remembered, and how often at most
// a key's last use is written.
const credentialTTL = time.Minute

// credentialsMax bounds how many keys are remembered; past it the memory starts over.
const credentialsMax = 10_000

// credentials remembers, by the hash of the key, the credentials that authenticated, so that a
// request does not read its app's row and its key's to check them: on PostgreSQL that read was one
// statement in five of a transfer's. Of what is kept, the kind and the ids never change once an
// app is written; an app's organization changes only when AdoptApps gives it one, and a key's end
// only when it is revoked or replaced, which forget what this process remembered. The minute
// bounds what such a change waits for in another process. A key's expiry is checked from memory
// too. Credentials that failed are never remembered, so a guess costs a read as before.
type credentials struct {
	mu     sync.Mutex
	byHash map[string]rememberedCredential
}

type rememberedCredential struct {
	app     AppRecord // only ID, Kind, OrganizationID and ClientID
	keyID   string
	expires time.Time // zero when the key does not expire
	until   time.Time
}

func newCredentials() *credentials {
	return &credentials{byHash: map[string]rememberedCredential{}}
}

// get returns the app record and key id remembered for the key's hash, if they are the client
// id's, not older than credentialTTL, and the key has not expired since.
func (c *credentials) get(clientID string, hash []byte, now time.Time) (*AppRecord, string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	r, ok := c.byHash[string(hash)]
	if !ok || r.app.ClientID != clientID || !now.Before(r.until) || !r.key().usable(now) {
		return nil, "", false
	}
	app := r.app
	return &app, r.keyID, true
}

func (r rememberedCredential) key() *APIKeyRecord { return &APIKeyRecord{Expires: r.expires} }

// remember keeps what Authenticate needs of rec and its key, which just authenticated.
func (c *credentials) remember(rec *AppRecord, key *APIKeyRecord, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.byHash) >= credentialsMax {
		clear(c.byHash)
	}
	c.byHash[string(key.KeyHash)] = rememberedCredential{until: now.Add(credentialTTL), keyID: key.ID, expires: key.Expires,
		app: AppRecord{ID: rec.ID, Kind: rec.Kind, OrganizationID: rec.OrganizationID, ClientID: rec.ClientID}}
}

// forget drops every remembered credential, after a change to what they keep.
func (c *credentials) forget() {
	c.mu.Lock()
	defer c.mu.Unlock()
	clear(c.byHash)
}
