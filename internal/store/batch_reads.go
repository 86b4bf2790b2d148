package store

import (
	"slices"

	"github.com/disburse/disburse/internal/ledger"
	"github.com/disburse/disburse/internal/service"
)

// batchReads keeps, for one batch's transaction, the app rows and webhook endpoints its jobs
// read: every transfer of a batch reads its app and the app's endpoints, which hardly ever change.
// It also keeps the users its jobs said they would read (service.Intent), read for all of
// them in one statement by the first job that reads a user (readUsersAhead). It is dropped whole
// by any statement that says it writes a table it copies (touching), by a savepoint rolled back and by a job rolled back (which
// on PostgreSQL also lets go of the row locks taken inside it), so it never holds what the
// transaction does not (or no longer) see, or no longer holds locked.
type batchReads struct {
	apps      map[string]*service.AppRecord
	endpoints map[string][]service.WebhookEndpointRecord
	users     map[string]userRead
	inJob     bool
	// usersAhead is set once the batch's users were read ahead, or found not worth reading.
	usersAhead bool
}

// userRead is a user read ahead with its wallet (nil when the user has none yet).
type userRead struct {
	user   service.UserRecord
	wallet *ledger.Account
}

// batchReads returns the batch's copies, or nil outside a batch.
func (q *Queries) batchReads() *batchReads {
	if q.batch == nil {
		return nil
	}
	st := q.batchState()
	if st.reads == nil {
		st.reads = &batchReads{}
		st.reads.drop()
	}
	r := st.reads
	if !r.inJob {
		r.inJob = true
		q.batch.OnJobEnd(func(ok bool) {
			r.inJob = false
			if !ok {
				r.drop()
			}
		})
	}
	return r
}

func (r *batchReads) drop() {
	if r == nil {
		return
	}
	r.apps = map[string]*service.AppRecord{}
	r.endpoints = map[string][]service.WebhookEndpointRecord{}
	r.users = map[string]userRead{}
}

// app returns a copy of the app row read earlier in the batch; the caller may change it.
func (r *batchReads) app(id string) (*service.AppRecord, bool) {
	if r == nil {
		return nil, false
	}
	return copyOf(r.apps, id, cloneApp)
}

func (r *batchReads) keepApp(a *service.AppRecord) {
	if r != nil {
		r.apps[a.ID] = cloneApp(a)
	}
}

func cloneApp(a *service.AppRecord) *service.AppRecord {
	c := *a
	c.KeyHash, c.Metadata = slices.Clone(a.KeyHash), slices.Clone(a.Metadata)
	c.BankSealed, c.ComplianceSealed = slices.Clone(a.BankSealed), slices.Clone(a.ComplianceSealed)
	return &c
}

// webhookEndpoints returns a copy of the app's endpoints read earlier in the batch.
func (r *batchReads) webhookEndpoints(appID string) ([]service.WebhookEndpointRecord, bool) {
	if r == nil {
		return nil, false
	}
	return copyOf(r.endpoints, appID, cloneEndpoints)
}

// copyOf returns a copy of what m holds under key, if anything.
func copyOf[V any](m map[string]V, key string, clone func(V) V) (V, bool) {
	v, ok := m[key]
	if !ok {
		var none V
		return none, false
	}
	return clone(v), true
}

func (r *batchReads) keepWebhookEndpoints(appID string, eps []service.WebhookEndpointRecord) {
	if r != nil {
		r.endpoints[appID] = cloneEndpoints(eps)
	}
}

func cloneEndpoints(eps []service.WebhookEndpointRecord) []service.WebhookEndpointRecord {
	out := slices.Clone(eps)
	for i := range out {
		e := &out[i]
		e.EventTypes = slices.Clone(e.EventTypes)
		e.SealedSecret, e.SealedOld = slices.Clone(e.SealedSecret), slices.Clone(e.SealedOld)
	}
	return out
}

// user returns a copy of a user of the app read ahead, with its wallet as read.
func (r *batchReads) user(appID, id string) (*service.UserRecord, *ledger.Account, bool) {
	if r == nil {
		return nil, nil, false
	}
	read, ok := r.users[id]
	if !ok || read.user.AppID != appID {
		return nil, nil, false
	}
	u := cloneUser(read.user)
	if read.wallet == nil {
		return &u, nil, true
	}
	wallet := *read.wallet
	return &u, &wallet, true
}

func cloneUser(u service.UserRecord) service.UserRecord {
	if u.Username != nil {
		name := *u.Username
		u.Username = &name
	}
	if u.DefaultPayoutMethod != nil {
		p := *u.DefaultPayoutMethod
		u.DefaultPayoutMethod = &p
	}
	u.Metadata = slices.Clone(u.Metadata)
	return u
}
