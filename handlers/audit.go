package handlers

import (
	"net/url"
	"strconv"

	"github.com/gofiber/fiber/v2"

	"disburse/dashstore"
	"disburse/views/pages"
	"disburse/web"
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
		return "/users/" + id
	case "operator":
		return "/operators/" + id
	case "app":
		return "/app"
	}
	return ""
}

// auditLog shows the audit log, newest first, narrowed to an operator or an object.
func (h *Handlers) auditLog(c *fiber.Ctx) error {
	f := dashstore.AuditFilter{OperatorID: c.Query("operator"), ObjectType: c.Query("object_type"),
		ObjectID: c.Query("object_id"), Limit: 50}
	if before := c.Query("before"); before != "" {
		n, err := strconv.ParseInt(before, 10, 64)
		if err != nil || n < 1 {
			return fiber.NewError(fiber.StatusBadRequest, "The page link is broken: go back to the first page.")
		}
		f.Before = n
	}
	entries, more, err := h.store.AuditLog(c.UserContext(), f)
	if err != nil {
		return err
	}
	p := pages.AuditProps{ObjectType: f.ObjectType, ObjectID: f.ObjectID}
	for _, e := range entries {
		p.Entries = append(p.Entries, pages.AuditRow{Created: e.Created, OperatorEmail: e.OperatorEmail,
			Action: e.Action, ObjectType: e.ObjectType, ObjectID: e.ObjectID,
			ObjectURL: objectURL(e.ObjectType, e.ObjectID), Detail: e.Detail, IP: e.IP})
	}
	p.Pages.Target = "#audit-table"
	if more {
		q := url.Values{}
		for _, k := range []string{"operator", "object_type", "object_id"} {
			if v := c.Query(k); v != "" {
				q.Set(k, v)
			}
		}
		q.Set("before", strconv.FormatInt(entries[len(entries)-1].ID, 10))
		p.Pages.Next = "/audit?" + q.Encode()
	}
	return h.web.Render(c, fiber.StatusOK, web.Page{Title: "Audit log", Content: pages.Audit(p), Fragment: pages.AuditTable(p)})
}
