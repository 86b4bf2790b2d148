package web

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/middleware/adaptor"
	"github.com/gorilla/sessions"

	"github.com/disburse/disburse/internal/dashstore"
	"github.com/disburse/disburse/payouts"
)

// SessionCookie is the name of the dashboard's session cookie. It holds only a random id.
const SessionCookie = "disburse_session"

// Session value keys.
const (
	keyOperatorID = "operator_id"
	keyCSRF       = "csrf"
)

// SessionStore is a gorilla/sessions Store that keeps sessions in the dashboard's database: the
// cookie holds a random 256-bit id and nothing else, so a session can be revoked on the server
// and every copy of the dashboard sees the same sessions. A session expires after idle without a
// request, or lifetime after it began, whichever comes first.
type SessionStore struct {
	db       Store
	now      func() time.Time
	idle     time.Duration
	lifetime time.Duration
	secure   bool
}

var _ sessions.Store = (*SessionStore)(nil)

// NewSessionStore returns a store on db; secure marks cookies Secure (served over TLS).
func NewSessionStore(db Store, now func() time.Time, idle, lifetime time.Duration, secure bool) *SessionStore {
	return &SessionStore{db: db, now: now, idle: idle, lifetime: lifetime, secure: secure}
}

// sessionMeta is kept in Values under a key of an unexported type, so it is never encoded with
// the values and no caller can collide with it.
type metaKey struct{}

type sessionMeta struct {
	created, lastSeen, expires time.Time
}

func metaOf(s *sessions.Session) *sessionMeta {
	m, _ := s.Values[metaKey{}].(*sessionMeta)
	if m == nil {
		m = &sessionMeta{}
		s.Values[metaKey{}] = m
	}
	return m
}

// Get returns the request's session. The dashboard calls it once per request (web's session
// middleware), so it needs no registry of its own.
func (st *SessionStore) Get(r *http.Request, name string) (*sessions.Session, error) {
	return st.New(r, name)
}

// New loads the session named by the request's cookie, or starts a new one when there is no
// cookie or its session is unknown, idle too long or past its lifetime. Only a database failure
// is an error.
func (st *SessionStore) New(r *http.Request, name string) (*sessions.Session, error) {
	s := sessions.NewSession(st, name)
	s.IsNew = true
	cookie, err := r.Cookie(name)
	if err != nil || cookie.Value == "" || len(cookie.Value) > 64 {
		return s, nil
	}
	rec, err := st.db.Session(r.Context(), cookie.Value)
	if payouts.ErrorCode(err) == payouts.ENotFound {
		return s, nil
	}
	if err != nil {
		return s, err
	}
	now := st.now()
	if !now.Before(rec.Expires) || now.Sub(rec.LastSeen) >= st.idle {
		return s, st.db.DeleteSession(r.Context(), rec.ID)
	}
	values := map[string]any{}
	if err := json.Unmarshal(rec.Data, &values); err != nil {
		return s, fmt.Errorf("session values: %w", err)
	}
	for k, v := range values {
		s.Values[k] = v
	}
	s.ID, s.IsNew = rec.ID, false
	*metaOf(s) = sessionMeta{created: rec.Created, lastSeen: rec.LastSeen, expires: rec.Expires}
	return s, nil
}

// Save stores the session and sets its cookie. A session whose Options.MaxAge is negative is
// revoked: deleted from the database and its cookie expired. A session without an ID gets a new
// random one and a new lifetime.
func (st *SessionStore) Save(r *http.Request, w http.ResponseWriter, s *sessions.Session) error {
	opts := sessions.Options{Path: "/", HttpOnly: true, Secure: st.secure, SameSite: http.SameSiteLaxMode}
	if s.Options != nil && s.Options.MaxAge < 0 {
		if s.ID != "" {
			if err := st.db.DeleteSession(r.Context(), s.ID); err != nil {
				return err
			}
		}
		opts.MaxAge = -1
		http.SetCookie(w, sessions.NewCookie(s.Name(), "", &opts))
		return nil
	}
	now := st.now()
	meta := metaOf(s)
	if s.ID == "" {
		s.ID = randomToken()
		*meta = sessionMeta{created: now, expires: now.Add(st.lifetime)}
	}
	meta.lastSeen = now
	data, err := encodeValues(s)
	if err != nil {
		return err
	}
	operatorID, _ := s.Values[keyOperatorID].(string)
	if err := st.db.SaveSession(r.Context(), dashstore.Session{ID: s.ID, OperatorID: operatorID, Data: data,
		Created: meta.created, LastSeen: meta.lastSeen, Expires: meta.expires}); err != nil {
		return err
	}
	// The cookie lives exactly as long as the session may: until its absolute expiry.
	opts.MaxAge = int(meta.expires.Sub(now) / time.Second)
	http.SetCookie(w, sessions.NewCookie(s.Name(), s.ID, &opts))
	return nil
}

// encodeValues writes the session's values as JSON. Keys must be strings; values are strings,
// numbers, booleans and lists of them (flash messages), which survive the round trip as the same
// Go types gorilla's flash helpers expect.
func encodeValues(s *sessions.Session) ([]byte, error) {
	out := make(map[string]any, len(s.Values))
	for k, v := range s.Values {
		if _, meta := k.(metaKey); meta {
			continue
		}
		key, ok := k.(string)
		if !ok {
			return nil, fmt.Errorf("session value key %v is not a string", k)
		}
		out[key] = v
	}
	return json.Marshal(out)
}

func randomToken() string {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		panic(err) // crypto/rand does not fail on supported platforms
	}
	return base64.RawURLEncoding.EncodeToString(b)
}

// requestSession is the session of one request, loaded once by withSession.
type requestSession struct {
	r        *http.Request
	s        *sessions.Session
	loaded   string // the values as loaded, to tell whether the request changed them
	revoked  bool
	operator *dashstore.Operator // cached by currentOperator
	looked   bool                // currentOperator already looked
}

const localsSession = "web.session"

func sessionOf(c *fiber.Ctx) *requestSession {
	rs, _ := c.Locals(localsSession).(*requestSession)
	return rs
}

// withSession bridges the request to net/http once (Fiber's adaptor), loads the session through
// the gorilla Store, runs the rest of the chain, then saves the session if the request changed it
// and copies the Set-Cookie header back onto Fiber's response.
func (s *Server) withSession(c *fiber.Ctx) error {
	r, err := adaptor.ConvertRequest(c, false)
	if err != nil {
		return err
	}
	r = r.WithContext(c.UserContext())
	sess, err := s.sessions.Get(r, SessionCookie)
	if err != nil {
		return err
	}
	loaded, _ := encodeValues(sess)
	rs := &requestSession{r: r, s: sess, loaded: string(loaded)}
	c.Locals(localsSession, rs)

	err = c.Next()
	if saveErr := s.saveSession(c, rs); saveErr != nil {
		s.cfg.Logger.Error("save session", "err", saveErr)
		if err == nil {
			err = saveErr
		}
	}
	return err
}

func (s *Server) saveSession(c *fiber.Ctx, rs *requestSession) error {
	if rs.revoked {
		rs.s.Options.MaxAge = -1
	} else {
		now, _ := encodeValues(rs.s)
		changed := string(now) != rs.loaded
		if !changed && rs.s.ID != "" {
			// Unchanged: only note the activity, at most once a minute, to keep it from idling out.
			if meta := metaOf(rs.s); s.cfg.Now().Sub(meta.lastSeen) >= time.Minute {
				return s.cfg.Store.TouchSession(c.UserContext(), rs.s.ID, s.cfg.Now())
			}
			return nil
		}
		if !changed {
			return nil // a new session nobody put anything in is not worth a row
		}
	}
	w := headerRecorder{}
	if err := s.sessions.Save(rs.r, w, rs.s); err != nil {
		return err
	}
	for _, v := range w.Header().Values("Set-Cookie") {
		c.Response().Header.Add(fiber.HeaderSetCookie, v)
	}
	return nil
}

// headerRecorder is the http.ResponseWriter the gorilla Store writes its Set-Cookie to.
type headerRecorder http.Header

func (h headerRecorder) Header() http.Header         { return http.Header(h) }
func (h headerRecorder) Write(b []byte) (int, error) { return len(b), nil }
func (h headerRecorder) WriteHeader(int)             {}

// sessionValue returns a string value of the request's session.
func sessionValue(c *fiber.Ctx, key string) string {
	rs := sessionOf(c)
	if rs == nil {
		return ""
	}
	v, _ := rs.s.Values[key].(string)
	return v
}

// Flash kinds.
const (
	FlashSuccess = "success"
	FlashError   = "error"
	FlashInfo    = "info"
)

// Flash queues a message for the operator: shown on the next full page, or as a toast on an
// htmx response.
func Flash(c *fiber.Ctx, kind, message string) {
	if rs := sessionOf(c); rs != nil {
		rs.s.AddFlash(message, "flash."+kind)
	}
}

// takeFlashes removes and returns the queued messages, by kind.
func takeFlashes(c *fiber.Ctx) []flash {
	rs := sessionOf(c)
	if rs == nil {
		return nil
	}
	var out []flash
	for _, kind := range []string{FlashError, FlashSuccess, FlashInfo} {
		for _, m := range rs.s.Flashes("flash." + kind) {
			if msg, ok := m.(string); ok {
				out = append(out, flash{kind: kind, message: msg})
			}
		}
	}
	return out
}

type flash struct{ kind, message string }
