package handlers

import (
	"github.com/gofiber/fiber/v2"

	"github.com/disburse/disburse/internal/dashstore"
	"github.com/disburse/disburse/views/components"
	"github.com/disburse/disburse/views/pages"
	"github.com/disburse/disburse/views/paths"
	"github.com/disburse/disburse/web"
)

func roleOptions() []components.Option {
	opts := make([]components.Option, len(dashstore.Roles))
	for i, r := range dashstore.Roles {
		opts[i] = components.Option{Value: string(r), Label: r.Label()}
	}
	return opts
}

func operatorRow(op dashstore.Operator) pages.OperatorRow {
	return pages.OperatorRow{ID: op.ID, Name: op.Name, Email: op.Email, Role: string(op.Role),
		RoleName: op.Role.Label(), Disabled: op.Disabled, Created: op.Created}
}

// operators lists the operators with the form to add one.
func (h *Handlers) operators(c *fiber.Ctx) error {
	return h.renderOperators(c, fiber.StatusOK, components.Form{Values: map[string]string{"role": string(dashstore.RoleSupport)}}, nil)
}

func (h *Handlers) renderOperators(c *fiber.Ctx, status int, form components.Form, created *pages.NewPassword) error {
	ops, err := h.store.Operators(c.UserContext())
	if err != nil {
		return err
	}
	p := pages.OperatorsProps{Roles: roleOptions(), Form: form, Created: created}
	for _, op := range ops {
		p.Operators = append(p.Operators, operatorRow(op))
	}
	return h.web.Render(c, status, web.Page{Title: "Operators", Content: pages.Operators(h.web.View(c), p)})
}

// createOperator adds an operator with a generated password, shown once.
func (h *Handlers) createOperator(c *fiber.Ctx) error {
	form := formOf(c, "name", "email", "role")
	password := web.RandomPassword()
	hash, err := web.HashPassword(password, h.password)
	if err != nil {
		return err
	}
	op := dashstore.Operator{Name: form.Value("name"), Email: form.Value("email"),
		Role: dashstore.Role(form.Value("role")), PasswordHash: hash, VouchedBy: h.operatorOf(c).ID}
	err = h.store.CreateOperator(c.UserContext(), &op, h.now())
	if formFailed(err, &form) {
		return h.renderOperators(c, fiber.StatusUnprocessableEntity, form, nil)
	}
	if err != nil {
		return err
	}
	h.audit(c, "operator.create", "operator", op.ID, op.Email+" as "+op.Role.Label())
	// Rendered rather than redirected: the password must not sit in a flash in the session table.
	return h.renderOperators(c, fiber.StatusCreated, components.Form{Values: map[string]string{"role": string(dashstore.RoleSupport)}},
		&pages.NewPassword{Email: op.Email, Password: password})
}

// operator shows one operator with the actions on them.
func (h *Handlers) operator(c *fiber.Ctx) error {
	return h.renderOperator(c, fiber.StatusOK, components.Form{}, nil)
}

func (h *Handlers) renderOperator(c *fiber.Ctx, status int, form components.Form, newPassword *pages.NewPassword) error {
	op, err := h.store.Operator(c.UserContext(), c.Params("id"))
	if err != nil {
		return err
	}
	p := pages.OperatorProps{Operator: operatorRow(op), Roles: roleOptions(), Form: form, NewPassword: newPassword,
		IsSelf: op.ID == h.operatorOf(c).ID}
	return h.web.Render(c, status, web.Page{Title: op.Name, Content: pages.Operator(h.web.View(c), p)})
}

// updateOperator applies one change to an operator, records it and goes back to their page.
func (h *Handlers) updateOperator(c *fiber.Ctx, upd dashstore.OperatorUpdate, action, detail, done string) error {
	upd.By = h.operatorOf(c).ID
	op, err := h.store.UpdateOperator(c.UserContext(), c.Params("id"), upd, h.now())
	form := components.Form{}
	if formFailed(err, &form) {
		return h.renderOperator(c, fiber.StatusUnprocessableEntity, form, nil)
	}
	if err != nil {
		return err
	}
	h.audit(c, action, "operator", op.ID, op.Email+detail)
	web.Flash(c, web.FlashSuccess, done)
	return web.Redirect(c, paths.Operator(op.ID))
}

// changeOperatorRole gives an operator another role; it applies from their next request.
func (h *Handlers) changeOperatorRole(c *fiber.Ctx) error {
	role := dashstore.Role(c.FormValue("role"))
	return h.updateOperator(c, dashstore.OperatorUpdate{Role: &role}, "operator.role",
		": role "+role.Label(), "Role changed to "+role.Label()+".")
}

// disableOperator stops an operator from signing in and ends their sessions.
func (h *Handlers) disableOperator(c *fiber.Ctx) error {
	return h.updateOperator(c, dashstore.OperatorUpdate{Disabled: new(true)}, "operator.disable", "",
		"Disabled: they are signed out everywhere.")
}

// enableOperator lets a disabled operator sign in again.
func (h *Handlers) enableOperator(c *fiber.Ctx) error {
	return h.updateOperator(c, dashstore.OperatorUpdate{Disabled: new(false)}, "operator.enable", "",
		"Enabled: they can sign in again.")
}

// resetOperatorPassword gives an operator a new generated password, shown once, and ends their
// sessions.
func (h *Handlers) resetOperatorPassword(c *fiber.Ctx) error {
	password := web.RandomPassword()
	hash, err := web.HashPassword(password, h.password)
	if err != nil {
		return err
	}
	op, err := h.store.UpdateOperator(c.UserContext(), c.Params("id"), dashstore.OperatorUpdate{PasswordHash: &hash,
		By: h.operatorOf(c).ID}, h.now())
	if err != nil {
		return err
	}
	h.audit(c, "operator.reset_password", "operator", op.ID, op.Email)
	if op.ID == h.operatorOf(c).ID {
		// Their own sessions, this one included, just ended.
		h.web.SignOut(c)
	}
	return h.renderOperator(c, fiber.StatusOK, components.Form{}, &pages.NewPassword{Email: op.Email, Password: password})
}
