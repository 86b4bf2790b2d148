package handlers

import (
	"context"
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/gofiber/fiber/v2"

	"github.com/disburse/disburse/payouts"
	"github.com/disburse/disburse/views/components"
	"github.com/disburse/disburse/views/paths"
	"github.com/disburse/disburse/web"
)

// A payee picker (components.PayeePicker) is two fields of a form: user, what was typed or the
// chosen payee's name, and user_id, the payee chosen.

// suggestedUsers is how many users a picker offers at once, and how many an ambiguous text names.
const suggestedUsers = 8

// payeePicker is the props of a form's payee picker, with the problem of either of its fields
// (the service names user_id).
func payeePicker(form components.Form, id, label, hint string) components.PayeePickerProps {
	problem := form.Error("user")
	if problem == "" {
		problem = form.Error("user_id")
	}
	return components.PayeePickerProps{ID: id, Name: "user", Label: label, Hint: hint, Text: form.Value("user"),
		UserID: form.Value("user_id"), Error: problem, SuggestURL: paths.UserSuggestions()}
}

// filterPicker is the payee picker of a filter form, which choosing a payee submits.
func filterPicker(form components.Form) components.PayeePickerProps {
	p := payeePicker(form, "filter-user", "Payee", "")
	p.SubmitOnChoose = true
	return p
}

// choosePayee resolves a form's payee picker to a user id, "" when nothing was typed: the payee
// chosen while the text still names them, else an id typed, else the one user the text finds
// (the search's own reading: name in any order, email, phone in any format). No match or several
// put the problem on the user field, naming those found. The form is left showing the payee by
// name with the id, so that a form rendered again keeps the choice.
func (h *Handlers) choosePayee(ctx context.Context, form *components.Form) (string, error) {
	text, id := strings.TrimSpace(form.Value("user")), strings.TrimSpace(form.Value("user_id"))
	if payouts.ValidID(id) {
		u, err := h.userIfAny(ctx, id)
		if err != nil {
			return "", err
		}
		if u != nil && (text == "" || strings.EqualFold(text, payeeLabel(*u)) || text == id) {
			return choose(form, *u), nil
		}
	}
	delete(form.Values, "user_id")
	switch {
	case text == "" && id != "": // chosen on a page since gone stale, or made up
		addProblem(form, "user", "no user has this id")
		return "", nil
	case text == "":
		return "", nil
	case utf8.RuneCountInString(text) > maxSearchLength:
		addProblem(form, "user", "is too long: type part of a name, an email, a phone number or an id")
		return "", nil
	case payouts.ValidID(text):
		u, err := h.userIfAny(ctx, text)
		if err != nil {
			return "", err
		}
		if u != nil {
			return choose(form, *u), nil
		}
		addProblem(form, "user", "no user has this id")
		return "", nil
	}
	m, err := h.matchPayees(ctx, text)
	if err != nil {
		return "", err
	}
	found := m.users
	if m.partial != "" {
		addProblem(form, "user", m.partial+" so “"+text+"” may name a user not read yet: choose by id, or try again once all are read")
		return "", nil
	}
	if len(found) == 1 && m.indexed {
		// The index's copy may be old: the choice is made on the user as the service has it now.
		u, err := h.userIfAny(ctx, found[0].ID)
		if err != nil {
			return "", err
		}
		if u == nil || !payouts.MatchesSearch(payouts.UserSearchText(*u), payouts.SearchTerms(text)) && !strings.EqualFold(u.Email, text) {
			found = nil
		} else {
			found[0] = *u
		}
	}
	switch len(found) {
	case 0:
		addProblem(form, "user", "no user matches “"+text+"”: type part of a name, an email, a phone number or an id")
		return "", nil
	case 1:
		return choose(form, found[0]), nil
	}
	names := make([]string, len(found))
	for i, u := range found {
		names[i] = payeeLabel(u) + " (" + u.Email + ")"
	}
	count := components.Count(len(found))
	if m.total > len(found) {
		count = components.Count(m.total)
	} else if m.more {
		count = "more than " + count
	}
	addProblem(form, "user", count+" users match “"+text+"”: "+strings.Join(names, ", ")+
		"; type more of the one you mean, such as the email")
	return "", nil
}

// payeeMatches is what a picker's text finds: the first users it matches (one alone when it is a
// user's whole email), how many match when known (total) or that more do (more), and, when
// the payee index has not read every user yet, the sentence that says so (partial).
type payeeMatches struct {
	users   []payouts.User
	total   int
	more    bool
	indexed bool // found in the payee index
	partial string
}

// matchPayees finds the users text matches: by the service's search when it has one, else in
// the payee index brought up to date.
func (h *Handlers) matchPayees(ctx context.Context, text string) (payeeMatches, error) {
	use, err := h.usesPayeeIndex(ctx)
	if err != nil {
		return payeeMatches{}, err
	}
	if !use {
		list, err := h.payouts.ListUsers(ctx, payouts.Page{Limit: suggestedUsers}, payouts.UserFilter{Search: text})
		if err != nil {
			return payeeMatches{}, err
		}
		for _, u := range list.Data {
			if strings.EqualFold(u.Email, text) { // an exact email among emails that contain it
				return payeeMatches{users: []payouts.User{u}}, nil
			}
		}
		return payeeMatches{users: list.Data, more: list.HasMore}, nil
	}
	found, st, err := h.indexedPayees(ctx, text, suggestedUsers)
	if err != nil {
		return payeeMatches{}, err
	}
	m := payeeMatches{users: found.Users, total: found.Total, indexed: true}
	if !st.Complete {
		m.partial = "the dashboard has read " + components.Count(st.Payees) + " of this API's users so far,"
		return m, nil
	}
	exact, err := h.store.PayeesByEmail(ctx, text)
	if len(exact) == 1 {
		m.users, m.total = exact, 1
	}
	return m, err
}

// filterQuery is a filter form's values as URL parameters, for its links, pager and export. A
// payee chosen goes by id alone: the name the picker shows is the id's, and a link that carried
// both would say the payee twice.
func filterQuery(form components.Form) url.Values {
	q := url.Values{}
	for k, v := range form.Values {
		q.Set(k, v)
	}
	if q.Get("user_id") != "" {
		q.Del("user")
	}
	return q
}

// choose puts the payee chosen in the picker's fields.
func choose(form *components.Form, u payouts.User) string {
	form.Values["user"], form.Values["user_id"] = payeeLabel(u), u.ID
	return u.ID
}

// payeeLabel is how a picker shows a payee once chosen: by name, or by email for one without.
func payeeLabel(u payouts.User) string {
	if name := u.Name(); name != "" {
		return name
	}
	return u.Email
}

// userIfAny reads a user, nil when the service has none of that id.
func (h *Handlers) userIfAny(ctx context.Context, id string) (*payouts.User, error) {
	u, err := h.getUser(ctx, id)
	if payouts.ErrorCode(err) == payouts.ENotFound {
		return nil, nil
	}
	return u, err
}

// suggestUsers answers a payee picker's typing with the users whose name, email, phone or id
// match, as the picker's options.
func (h *Handlers) suggestUsers(c *fiber.Ctx) error {
	typed := strings.TrimSpace(c.Query("user"))
	var users []payouts.User
	switch {
	case utf8.RuneCountInString(typed) > maxSearchLength:
	case payouts.ValidID(typed):
		u, err := h.userIfAny(c.UserContext(), typed)
		if err != nil {
			return err
		}
		if u != nil {
			users = []payouts.User{*u}
		}
	case typed != "":
		m, err := h.matchPayees(c.UserContext(), typed)
		if err != nil {
			return err
		}
		users = m.users
	}
	options := make([]components.PayeeOption, len(users))
	for i, u := range users {
		options[i] = components.PayeeOption{ID: u.ID, Label: payeeLabel(u), Detail: u.Email + " · " + components.Phone(u.PhoneNumber)}
	}
	return h.web.Render(c, fiber.StatusOK, web.Page{Title: "Users", Content: components.PayeeOptions(options),
		Fragment: components.PayeeOptions(options)})
}

// payeeFromPage is the picker's fields for a form opened from a user's page (?user=ID): that
// payee, chosen and shown by name. Anything else leaves the picker empty.
func (h *Handlers) payeeFromPage(c *fiber.Ctx, form *components.Form) error {
	id := strings.TrimSpace(c.Query("user"))
	if !payouts.ValidID(id) {
		return nil
	}
	u, err := h.userIfAny(c.UserContext(), id)
	if u != nil {
		choose(form, *u)
	}
	return err
}
