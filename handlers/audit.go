package handlers

import (
	"net/url"
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/disburse/disburse/internal/dashstore"
	"github.com/disburse/disburse/views/components"
	"github.com/disburse/disburse/views/pages"
	"github.com/disburse/disburse/views/paths"
	"github.com/disburse/disburse/web"
)

// audit records that the signed-in operator did action to an object. It runs after the action
// succeeded; if the record cannot be written the action stands, and the failure is logged loudly
// rather than shown as a failed action the operator might repeat.
func (h *Handlers) audit(c *fiber.Ctx, action, objectType, objectID, detail string) {
	op := h.operatorOf(c)
	e := dashstore.AuditEntry{Created: h.now(), OperatorID: op.ID, OperatorEmail: op.Email, Action: action,
		ObjectType: objectType, ObjectID: objectID, Detail: detail, IP: h.web.ClientIP(c)}
	if err := h.store.AddAudit(c.UserContext(), &e); err != nil {
		h.log.Error("audit log write failed", "action", action, "object", objectType+" "+objectID, "operator", op.Email, "err", err)
	}
}

// objectURL is where the dashboard shows an audited object.
func objectURL(objectType, id string) string {
	switch objectType {
	case "user":
		return paths.User(id)
	case "operator":
		return paths.Operator(id)
	case "app":
		return "/app"
	case "transfer":
		return paths.Transfer(id)
	case "payout_link":
		return paths.PayoutLink(id)
	case "flow":
		return paths.Flow(id)
	case "webhook":
		return "/webhooks/" + id
	case "bulk":
		return paths.Bulk(id)
	case "approval":
		return paths.Approval(id)
	case "payout_request":
		return paths.PayoutRequest(id)
	}
	return ""
}

// auditObjectTypes are the kinds of object the audit log records actions on.
var auditObjectTypes = []string{"user", "transfer", "payout_link", "flow", "app", "operator", "webhook", "bulk", "transfers", "transactions",
	"approval", "payout_request"}

// auditLog shows the audit log, newest first, narrowed to an operator, a kind of object or one
// object.
func (h *Handlers) auditLog(c *fiber.Ctx) error {
	f := dashstore.AuditFilter{OperatorID: c.Query("operator"), ObjectType: c.Query("object_type"),
		ObjectID: strings.TrimSpace(c.Query("object_id")), Limit: 50}
	if before := c.Query("before"); before != "" {
		n, err := strconv.ParseInt(before, 10, 64)
		if err != nil || n < 1 {
			return fiber.NewError(fiber.StatusBadRequest, "The page link is broken: go back to the first page.")
		}
		f.Before = n
	}
	ctx := c.UserContext()
	entries, more, err := h.store.AuditLog(ctx, f)
	if err != nil {
		return err
	}
	ops, err := h.store.Operators(ctx)
	if err != nil {
		return err
	}
	p := pages.AuditProps{OperatorID: f.OperatorID, ObjectType: f.ObjectType, ObjectID: f.ObjectID,
		Operators:   []components.Option{{Value: "", Label: "Any operator"}},
		ObjectTypes: options("Any object", auditObjectTypes, pages.ObjectTypeName),
		Filtered:    f.OperatorID != "" || f.ObjectType != "" || f.ObjectID != "" || f.Before != 0}
	names := make(map[string]string, len(ops))
	for _, op := range ops {
		p.Operators = append(p.Operators, components.Option{Value: op.ID, Label: op.Name + " <" + op.Email + ">"})
		names[op.ID] = op.Name
	}
	for _, e := range entries {
		p.Entries = append(p.Entries, pages.AuditRow{Created: e.Created, OperatorID: e.OperatorID, OperatorEmail: e.OperatorEmail,
			OperatorName: names[e.OperatorID],
			Action:       e.Action, ObjectType: e.ObjectType, ObjectID: e.ObjectID,
			ObjectURL: objectURL(e.ObjectType, e.ObjectID), Detail: e.Detail, IP: e.IP})
	}
	p.Pages.Target = "#audit-table"
	if more {
		query := url.Values{"operator": {f.OperatorID}, "object_type": {f.ObjectType}, "object_id": {f.ObjectID},
			"before": {strconv.FormatInt(entries[len(entries)-1].ID, 10)}}
		p.Pages.Next = queryURL("/audit", query)
	}
	return h.web.Render(c, fiber.StatusOK, web.Page{Title: "Audit log", Content: pages.Audit(p), Fragment: pages.AuditTable(p)})
}
