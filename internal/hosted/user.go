package hosted

import (
	"maps"

	"github.com/a-h/templ"
	"github.com/gofiber/fiber/v2"

	"github.com/disburse/disburse/internal/service"
	"github.com/disburse/disburse/payouts"
	"github.com/disburse/disburse/views/components"
	views "github.com/disburse/disburse/views/hosted"
)

// identify is POST /f/{id}/identify: the payee gives a phone number (and names and email when it
// is new) and is texted a token; on a flow whose code goes to its link's email, the payee gives
// nothing and the code goes there.
func (h *Handler) identify(c *fiber.Ctx) error {
	p, err := h.openPayee(c)
	if err != nil {
		return err
	}
	if p.closed() {
		return h.next(c, p) // nothing left to do: no token to send
	}
	// c.IP() believes X-Forwarded-For only from the trusted proxies payoutd configured.
	sess, err := h.svc.IdentifyPayee(c.UserContext(), p.flow.ID, c.IP(), payeeForm(c))
	if err != nil {
		a, isForm := failed(c, err)
		if !isForm {
			return err
		}
		p.sess = service.PayeeSession{}
		return h.show(c, p, a)
	}
	p.sess = sess
	return h.next(c, p)
}

// payeeForm is what a payee said about themselves on the identify or details page.
func payeeForm(c *fiber.Ctx) payouts.CreateUserRequest {
	return payouts.CreateUserRequest{CountryCode: c.FormValue("country_code"), PhoneNumber: c.FormValue("phone_number"),
		FirstName: c.FormValue("first_name"), LastName: c.FormValue("last_name"), Email: c.FormValue("email")}
}

// details is POST /f/{id}/details: the payee whose code proved the link's email, which nobody
// held, gives names and phone and becomes the flow's user.
func (h *Handler) details(c *fiber.Ctx, p *payee) error {
	sess, err := h.svc.GivePayeeDetails(c.UserContext(), c.IP(), p.sess, payeeForm(c))
	if err != nil {
		return h.retry(c, p, err)
	}
	p.sess = sess
	return h.next(c, p)
}

// identifyView is the identify page's model. On a flow whose code goes to its link's email it
// only says where the code goes. Otherwise the names and email are asked for once the service
// says the number is new, or at once, pre-filled, when the payout link names its payee; their
// "is required" problems are not shown before the payee saw them.
func identifyView(form components.Form, link *service.PayoutLinkRecord) views.Identify {
	if service.CodeByEmail(link) {
		to := views.MaskEmail(link.Payee.Email)
		if form.Error("email") != "" { // the page has no field to fix: only the sender can
			form.Message = "We could not deliver a code to " + to + "; ask the sender of this payout to check the address."
		}
		return views.Identify{Form: form, EmailTo: to}
	}
	details := []string{"first_name", "last_name", "email"}
	form, named := withKnownPayee(form, link)
	v := views.Identify{Form: form, NewPayee: named}
	typed := false
	for _, name := range details {
		v.NewPayee = v.NewPayee || form.Error(name) != ""
		typed = typed || form.Value(name) != ""
	}
	if v.NewPayee && !typed {
		errs := map[string]string{}
		for k, e := range form.Errors {
			errs[k] = e
		}
		for _, name := range details {
			delete(errs, name)
		}
		v.Form.Errors = errs
		if len(errs) == 0 {
			v.Form.Message = ""
		}
	}
	return v
}

// detailsView is the details page's model: the names the link gives, pre-filled, and the email
// the payee proved.
func detailsView(form components.Form, link *service.PayoutLinkRecord) views.Details {
	form, _ = withKnownPayee(form, link)
	return views.Details{Form: form, Email: link.Payee.Email}
}

// withKnownPayee fills the fields the payee left empty with what the payout link says about
// them, as the operator gave it, so that the payee checks rather than retypes it. It reports
// whether the link names the payee (a name or an email). A link issued to a user asks nothing:
// the user is on file.
func withKnownPayee(form components.Form, l *service.PayoutLinkRecord) (components.Form, bool) {
	if l == nil || l.UserID != nil {
		return form, false
	}
	known := map[string]string{"first_name": l.Payee.FirstName, "last_name": l.Payee.LastName, "email": l.Payee.Email,
		"country_code": l.Payee.CountryCode, "phone_number": l.Payee.PhoneNumber}
	values := make(map[string]string, len(known))
	maps.Copy(values, form.Values)
	for field, v := range known {
		if values[field] == "" {
			values[field] = v
		}
	}
	form.Values = values
	return form, l.Payee.FirstName != "" || l.Payee.LastName != "" || l.Payee.Email != ""
}

// verifyPage asks for the token sent to the payee's phone, or to the link's email.
func (h *Handler) verifyPage(c *fiber.Ctx, p *payee, a answer) (templ.Component, error) {
	if p.sess.ByEmail {
		v := views.Verify{Form: a.form, EmailTo: views.MaskEmail(p.flow.Link.Payee.Email), Sent: c.Query("sent") == "1"}
		return views.VerifyPage(h.signInView(p), v), nil
	}
	user, email, err := h.svc.PayeeCodeEmail(c.UserContext(), p.flow, p.sess.UserID)
	if err != nil {
		return nil, err
	}
	v := views.Verify{Form: a.form, Phone: views.MaskPhone(user.PhoneNumber), Sent: c.Query("sent") == "1"}
	if email != "" {
		v.EmailTo = views.MaskEmail(email)
	}
	return views.VerifyPage(h.signInView(p), v), nil
}

// verify is POST /f/{id}/verify: a right token binds the browser to the payee for the flow, or,
// when it proved a link's email nobody holds, leads to the details page.
func (h *Handler) verify(c *fiber.Ctx, p *payee) error {
	sess, err := h.svc.VerifyPayee(c.UserContext(), p.sess, c.FormValue("token"))
	if err != nil {
		return h.retry(c, p, err)
	}
	p.sess = sess
	return h.next(c, p)
}

// resend is POST /f/{id}/resend: a new token, replacing the last.
func (h *Handler) resend(c *fiber.Ctx, p *payee) error {
	if err := h.svc.ResendPayeeToken(c.UserContext(), c.IP(), p.sess); err != nil {
		return err
	}
	return h.next(c, p, "sent", "1")
}
