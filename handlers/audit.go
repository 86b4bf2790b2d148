package handlers

import (
	"context"
	"iter"
	"net/url"
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/disburse/disburse/internal/dashstore"
	"github.com/disburse/disburse/payouts"
	"github.com/disburse/disburse/views/components"
	"github.com/disburse/disburse/views/pages"

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

// objectPages are the pages that show an audited object, by its type: their routes' paths.
var objectPages = map[string]string{"user": "/users/:id", "operator": "/operators/:id", "app": "/app",
	"transfer": "/transfers/:id", "payout_link": "/payout-links/:id", "flow": "/flows/:id", "webhook": "/webhooks/:id",
	"bulk": "/bulk/:id", "approval": "/approvals/:id", "payout_request": "/payout-requests/:id",
	"api_key": "/developers"}

// objectURL is where the dashboard shows an audited object: "" where nowhere, or where the
// operator's role may not open the page (a manager's log names operators, whose pages only an
// admin opens), so that no row links to a 403.
func (h *Handlers) objectURL(c *fiber.Ctx, objectType, id string) string {
	page, ok := objectPages[objectType]
	if perm, known := h.pagePerms[page]; !ok || !known || !h.can(c, perm) {
		return ""
	}
	return strings.Replace(page, ":id", url.PathEscape(id), 1)
}

// auditObjectTypes are the kinds of object the audit log records actions on.
var auditObjectTypes = []string{"user", "transfer", "payout_link", "flow", "app", "operator", "webhook", "bulk", "transfers", "transactions",
	"approval", "payout_request", "audit", "reconciliation", "route"}

// auditFilterFields are the query parameters the audit log and its export read.
var auditFilterFields = []string{"operator", "action", "object_type", "object_id", "user", "user_id", "from", "to", "tz"}

// auditFilterOf reads the audit log's filter from the query: an operator, an action, a kind of
// object or one object, a user (picked in the user search box: the entries about that user), and
// a date range in the operator's time zone. The form carries what was typed and its problems.
func (h *Handlers) auditFilterOf(c *fiber.Ctx) (dashstore.AuditFilter, components.Form) {
	form := components.Form{Values: map[string]string{}}
	for _, name := range auditFilterFields {
		if v := strings.TrimSpace(c.Query(name)); v != "" {
			form.Values[name] = v
		}
	}
	f := dashstore.AuditFilter{OperatorID: form.Value("operator"), Action: form.Value("action"),
		ObjectType: form.Value("object_type"), ObjectID: form.Value("object_id")}
	if userID := h.userOfFilter(c, &form); userID != "" {
		f.ObjectType, f.ObjectID = "user", userID
	}
	f.CreatedFrom, f.CreatedTo = dayRangeOf(&form, h.zoneOf(c, &form))
	return f, form
}

// auditLog shows the audit log, newest first, narrowed by auditFilterOf.
func (h *Handlers) auditLog(c *fiber.Ctx) error {
	f, form := h.auditFilterOf(c)
	f.Limit = 50
	if before := c.Query("before"); before != "" {
		n, err := strconv.ParseInt(before, 10, 64)
		if err != nil || n < 1 {
			return fiber.NewError(fiber.StatusBadRequest, "The page link is broken: go back to the first page.")
		}
		f.Before = n
	}
	ctx := c.UserContext()
	ops, err := h.store.Operators(ctx)
	if err != nil {
		return err
	}
	p := pages.AuditProps{Filter: form, OperatorID: f.OperatorID, Action: f.Action, ObjectType: form.Value("object_type"),
		Operators:   []components.Option{{Value: "", Label: "Any operator"}},
		Actions:     options("Any action", pages.AuditActions(), pages.AuditActionLabel),
		ObjectTypes: options("Any object", auditObjectTypes, pages.ObjectTypeName),
		UserSearch:  filterPicker(form),
		Filtered:    f.Before != 0 || formNarrows(form)}
	for _, op := range ops {
		p.Operators = append(p.Operators, components.Option{Value: op.ID, Label: op.Name + " <" + op.Email + ">"})
	}
	if len(form.Errors) > 0 {
		// A filter that cannot be read lists nothing rather than more than was asked for.
		view := h.web.View(c)
		return h.web.Render(c, fiber.StatusOK, web.Page{Title: "Audit log", Content: pages.Audit(view, p), Fragment: pages.AuditTable(view, p)})
	}
	entries, more, err := h.store.AuditLog(ctx, f)
	if err != nil {
		return err
	}
	names := newObjectNamer(h, ops)
	for _, e := range entries {
		name, err := names.name(ctx, e.ObjectType, e.ObjectID)
		if err != nil {
			return err
		}
		p.Entries = append(p.Entries, pages.AuditRow{Created: e.Created, OperatorID: e.OperatorID, OperatorEmail: e.OperatorEmail,
			OperatorName: names.operators[e.OperatorID],
			Action:       e.Action, ObjectType: e.ObjectType, ObjectID: e.ObjectID, ObjectName: name,
			ObjectURL: h.objectURL(c, e.ObjectType, e.ObjectID), Detail: e.Detail, IP: e.IP})
	}
	query := filterQuery(form)
	p.Pages.Target = "#audit-table"
	if more {
		next := filterQuery(form)
		next.Set("before", strconv.FormatInt(entries[len(entries)-1].ID, 10))
		p.Pages.Next = queryURL("/audit", next)
	}
	if len(entries) > 0 {
		p.ExportURL = queryURL("/audit/export", query)
	}
	view := h.web.View(c)
	return h.web.Render(c, fiber.StatusOK, web.Page{Title: "Audit log", Content: pages.Audit(view, p), Fragment: pages.AuditTable(view, p)})
}

var auditCSVHeader = []string{"created", "operator_name", "operator_email", "action", "action_label", "object_type",
	"object_id", "object_name", "detail", "ip"}

// exportAudit streams every entry of the audit log's filter as CSV, newest first, with the same
// writer and formula guard as the other exports. The export is itself an entry of the log.
func (h *Handlers) exportAudit(c *fiber.Ctx) error {
	f, form := h.auditFilterOf(c)
	if len(form.Errors) > 0 {
		return fiber.NewError(fiber.StatusBadRequest, "The filter cannot be used: "+formProblems(form))
	}
	ops, err := h.store.Operators(c.UserContext())
	if err != nil {
		return err
	}
	h.audit(c, "audit.export", "audit", "", "CSV of "+describeQuery(filterQuery(form)))
	names := newObjectNamer(h, ops)
	loc := h.zoneOf(c, &form)
	return exportCSV(c, h.web, exportName("audit", h.now(), loc), loc, auditCSVHeader,
		func(ctx context.Context) iter.Seq2[dashstore.AuditEntry, error] { return h.allAudit(ctx, f) },
		func(ctx context.Context, e dashstore.AuditEntry) ([]string, error) {
			name, err := names.name(ctx, e.ObjectType, e.ObjectID)
			return []string{csvTime(e.Created, loc), csvText(names.operators[e.OperatorID]), csvText(e.OperatorEmail), csvText(e.Action),
				csvText(pages.AuditActionLabel(e.Action)), csvText(e.ObjectType), csvText(e.ObjectID), csvText(name),
				csvText(e.Detail), csvText(e.IP)}, err
		})
}

// allAudit yields every entry of f, newest first, a page of the largest size at a time.
func (h *Handlers) allAudit(ctx context.Context, f dashstore.AuditFilter) iter.Seq2[dashstore.AuditEntry, error] {
	return func(yield func(dashstore.AuditEntry, error) bool) {
		f.Limit = payouts.MaxLimit
		for {
			entries, more, err := h.store.AuditLog(ctx, f)
			if err != nil {
				yield(dashstore.AuditEntry{}, err)
				return
			}
			for _, e := range entries {
				if !yield(e, nil) {
					return
				}
			}
			if !more {
				return
			}
			f.Before = entries[len(entries)-1].ID
		}
	}
}

// objectNamer says what the objects of audit entries are, in the words of their pages: a user
// by name, a payout link by amount and payee, a transfer by type and amount, a webhook endpoint
// by URL, a bulk file by name. It asks once per object for as long as it lives (one page, one
// export). An object that is gone, or a kind it does not name, has no name, and the log shows its
// short id.
type objectNamer struct {
	h         *Handlers
	operators map[string]string // operator id -> name
	known     map[string]string // type + " " + id -> name
	webhooks  *bool             // whether the service offers webhook endpoints, once asked
}

func newObjectNamer(h *Handlers, ops []dashstore.Operator) *objectNamer {
	n := &objectNamer{h: h, operators: make(map[string]string, len(ops)), known: map[string]string{}}
	for _, op := range ops {
		n.operators[op.ID] = op.Name
	}
	return n
}

func (n *objectNamer) name(ctx context.Context, objectType, id string) (string, error) {
	if id == "" {
		return "", nil
	}
	key := objectType + " " + id
	if name, ok := n.known[key]; ok {
		return name, nil
	}
	name, err := n.lookup(ctx, objectType, id)
	if payouts.ErrorCode(err) == payouts.ENotFound || payouts.ErrorCode(err) == payouts.EInvalidInput {
		name, err = "", nil
	}
	if err != nil {
		return "", err
	}
	n.known[key] = name
	return name, nil
}

func (n *objectNamer) lookup(ctx context.Context, objectType, id string) (string, error) {
	switch objectType {
	case "operator":
		return n.operators[id], nil
	case "user":
		u, err := n.h.getUser(ctx, id)
		if err != nil {
			return "", err
		}
		return u.Name(), nil
	case "payout_link":
		l, err := n.h.payouts.GetPayoutLink(ctx, id)
		if err != nil {
			return "", err
		}
		return l.Amount.String() + " for " + pages.PayeeName(l.Payee), nil
	case "transfer":
		t, err := n.h.payouts.GetTransfer(ctx, id)
		if err != nil {
			return "", err
		}
		return pages.TransferLabel(*t) + " " + pages.TransferAmount(*t).String(), nil
	case "webhook":
		if n.webhooks == nil {
			offered, err := n.h.offers(ctx, payouts.ExtWebhookEndpoints)
			if err != nil {
				return "", err
			}
			n.webhooks = &offered
		}
		if !*n.webhooks {
			return "", nil
		}
		e, err := n.h.payouts.GetWebhookEndpoint(ctx, id)
		if err != nil {
			return "", err
		}
		return e.URL, nil
	case "bulk":
		job, err := n.h.store.BulkJob(ctx, n.h.appID, id)
		if err != nil {
			return "", err
		}
		return job.FileName, nil
	}
	return "", nil
}
