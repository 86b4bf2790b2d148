package handlers

import (
	"net/url"
	"strings"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"

	"github.com/disburse/disburse/payouts"
	"github.com/disburse/disburse/views/components"
	"github.com/disburse/disburse/views/pages"
	"github.com/disburse/disburse/views/paths"
	"github.com/disburse/disburse/web"
)

const usersPerPage = 25

var userStatuses = []payouts.UserStatus{payouts.UserUnverified, payouts.UserVerified, payouts.UserInReview, payouts.UserDisabled}

func userStatusLabel(s payouts.UserStatus) string { return strings.ReplaceAll(string(s), "_", " ") }

// users lists users, newest first, narrowed by a search and a status. htmx swaps only the table.
func (h *Handlers) users(c *fiber.Ctx) error {
	filter := payouts.UserFilter{Search: strings.TrimSpace(c.Query("q")), Status: payouts.UserStatus(c.Query("status"))}
	var problem string
	if filter.Status != "" && !filter.Status.Valid() {
		problem, filter.Status = "No status is called “"+string(filter.Status)+"”: every status is shown.", ""
	}
	page := pageOf(c, usersPerPage)
	list, note, err := h.findUsers(c.UserContext(), page, filter)
	if err != nil {
		return err
	}
	if problem != "" {
		note = strings.TrimSpace(problem + " " + note)
	}
	p := pages.UsersProps{Users: list.Data, Search: filter.Search, Status: string(filter.Status),
		Statuses: options("Any status", userStatuses, userStatusLabel), CanCreate: h.can(c, web.PermUsersWrite),
		Filtered: filter.Search != "" || filter.Status != "" || page.StartingAfter != "" || page.EndingBefore != ""}
	p.Notes = notesOf(note)
	// A list filtered here is the matches among the newest users: it has no further pages.
	if n := len(list.Data); n > 0 && note == "" {
		query := url.Values{"q": {filter.Search}, "status": {string(filter.Status)}}
		p.Pages = pageLinks("/users", query, page, list.Data[0].ID, list.Data[n-1].ID, list.HasMore, "#users-table")
	}
	view := h.web.View(c)
	return h.web.Render(c, fiber.StatusOK, web.Page{Title: "Users", Content: pages.Users(view, p), Fragment: pages.UsersTable(view, p)})
}

var userFields = []string{"first_name", "last_name", "email", "country_code", "phone_number", "username"}

// newUser shows the form to create a user.
func (h *Handlers) newUser(c *fiber.Ctx) error {
	return h.renderNewUser(c, fiber.StatusOK, components.Form{Values: map[string]string{"country_code": "1"}})
}

func (h *Handlers) renderNewUser(c *fiber.Ctx, status int, form components.Form) error {
	return h.web.Render(c, status, web.Page{Title: "New user", Content: pages.UserNew(h.web.View(c), pages.UserNewProps{Form: form})})
}

// createUser creates a user and opens their page.
func (h *Handlers) createUser(c *fiber.Ctx) error {
	form := formOf(c, userFields...)
	u, err := h.payouts.CreateUser(c.UserContext(), payouts.CreateUserRequest{
		FirstName: form.Value("first_name"), LastName: form.Value("last_name"), Email: form.Value("email"),
		CountryCode: form.Value("country_code"), PhoneNumber: form.Value("phone_number"), Username: form.Value("username"),
	})
	if formFailed(err, &form) {
		return h.renderNewUser(c, fiber.StatusUnprocessableEntity, form)
	}
	if err != nil {
		return err
	}
	h.notePayee(c.UserContext(), *u)
	h.audit(c, "user.create", "user", u.ID, u.Name()+" <"+u.Email+">")
	web.Flash(c, web.FlashSuccess, "Created "+u.Name()+".")
	return web.Redirect(c, paths.User(u.ID))
}

// user shows a user's page.
func (h *Handlers) user(c *fiber.Ctx) error {
	return h.renderUser(c, fiber.StatusOK, userForms{})
}

// userForms are the states of the forms of a user's page, after one of them was sent.
type userForms struct {
	transfer, payout, verify components.Form
}

// renderUser renders the user's page with the states of its forms; each form gets a fresh
// idempotency key.
func (h *Handlers) renderUser(c *fiber.Ctx, status int, forms userForms) error {
	ctx := c.UserContext()
	id := c.Params("id")
	u, err := h.getUser(ctx, id)
	if err != nil {
		return err
	}
	methods, err := h.payouts.ListPayoutMethods(ctx, id)
	if err != nil {
		return err
	}
	transfers, err := h.payouts.ListTransfers(ctx, payouts.Page{Limit: 10}, payouts.TransferFilter{UserID: id})
	if err != nil {
		return err
	}
	x, err := h.payouts.Extensions(ctx)
	if err != nil {
		return err
	}
	p := pages.UserProps{User: *u, Methods: methods, Transfers: transfers.Data, DefaultUnreported: !x.Ours(),
		CanWrite: h.can(c, web.PermUsersWrite), CanMove: h.can(c, web.PermMoneyMove),
		CanReadTransfers: h.can(c, web.PermTransfersRead), CanCreateLink: h.can(c, web.PermLinksWrite),
		Transfer: pages.TransferFormProps{Form: forms.transfer, IdempotencyKey: uuid.NewString()},
		Payout:   payoutFormProps(*u, methods, forms.payout), Verify: forms.verify, CanResend: h.can(c, web.PermLinksWrite)}
	if p.MessagesOffered, err = h.offers(ctx, payouts.ExtMessages); err != nil {
		return err
	}
	if p.MessagesOffered {
		if p.Messages, err = h.payouts.UserMessages(ctx, id); err != nil {
			return err
		}
	}
	return h.web.Render(c, status, web.Page{Title: u.Name(), Content: pages.User(h.web.View(c), p)})
}

// confirmDeleteUser asks before deleting a user.
func (h *Handlers) confirmDeleteUser(c *fiber.Ctx) error {
	u, err := h.getUser(c.UserContext(), c.Params("id"))
	if err != nil {
		return err
	}
	return h.web.Render(c, fiber.StatusOK, web.Page{Title: "Delete " + u.Name(),
		Content: pages.UserDelete(h.web.View(c), pages.UserDeleteProps{UserID: u.ID, UserName: u.Name()})})
}

// deleteUser deletes a user; one with money or a payout in flight stays, and the page says why.
func (h *Handlers) deleteUser(c *fiber.Ctx) error {
	u, err := h.payouts.DeleteUser(c.UserContext(), c.Params("id"))
	var form components.Form
	if formFailed(err, &form) {
		name := c.Params("id")
		if got, gerr := h.getUser(c.UserContext(), c.Params("id")); gerr == nil {
			name = got.Name()
		}
		return h.web.Render(c, fiber.StatusUnprocessableEntity, web.Page{Title: "Delete " + name,
			Content: pages.UserDelete(h.web.View(c), pages.UserDeleteProps{UserID: c.Params("id"), UserName: name, Problem: form.Message})})
	}
	if err != nil {
		return err
	}
	h.forgetPayee(c.UserContext(), u.ID)
	h.audit(c, "user.delete", "user", u.ID, u.Name()+" <"+u.Email+">")
	web.Flash(c, web.FlashSuccess, "Deleted "+u.Name()+".")
	return web.Redirect(c, "/users")
}

// sendVerificationToken texts the user a one-time code.
func (h *Handlers) sendVerificationToken(c *fiber.Ctx) error {
	id := c.Params("id")
	if err := h.payouts.SendVerificationToken(c.UserContext(), id, payouts.SendVerificationTokenRequest{}); err != nil {
		return err
	}
	h.audit(c, "user.send_verification_token", "user", id, "")
	web.Flash(c, web.FlashSuccess, "A code is on its way to the user's phone.")
	return web.Redirect(c, paths.User(id))
}

// verifyUser checks the code the user read back.
func (h *Handlers) verifyUser(c *fiber.Ctx) error {
	id := c.Params("id")
	form := formOf(c, "token")
	err := h.payouts.VerifyUser(c.UserContext(), id, payouts.VerifyUserRequest{Token: strings.TrimSpace(form.Value("token"))})
	if formFailed(err, &form) {
		return h.renderUser(c, fiber.StatusUnprocessableEntity, userForms{verify: form})
	}
	if err != nil {
		return err
	}
	h.audit(c, "user.verify", "user", id, "")
	web.Flash(c, web.FlashSuccess, "The user is verified.")
	return web.Redirect(c, paths.User(id))
}
