package handlers

import (
	"github.com/gofiber/fiber/v2"

	"disburse/web"
)

// Nav is the dashboard's navigation; each operator sees the links their role allows.
var Nav = []web.NavItem{
	{Label: "Users", Href: "/users", Perm: web.PermUsersRead},
	{Label: "App wallet", Href: "/app", Perm: web.PermAppRead},
	{Label: "Operators", Href: "/operators", Perm: web.PermOperatorsManage},
	{Label: "Audit log", Href: "/audit", Perm: web.PermAuditRead},
}

// routes lists every page and action of the dashboard with the permission it needs. Actions are
// POSTs from plain forms, so everything works without JavaScript; htmx only swaps parts.
func (h *Handlers) routes() []web.Route {
	const get, post = fiber.MethodGet, fiber.MethodPost
	return []web.Route{
		{Method: get, Path: "/login", Perm: web.PermPublic, Handler: h.loginPage},
		{Method: post, Path: "/login", Perm: web.PermPublic, Handler: h.login},
		{Method: post, Path: "/logout", Perm: web.PermSignedIn, Handler: h.logout},
		{Method: get, Path: "/", Perm: web.PermSignedIn, Handler: h.home},

		{Method: get, Path: "/operators", Perm: web.PermOperatorsManage, Handler: h.operators},
		{Method: post, Path: "/operators", Perm: web.PermOperatorsManage, Handler: h.createOperator},
		{Method: get, Path: "/operators/:id", Perm: web.PermOperatorsManage, Handler: h.operator},
		{Method: post, Path: "/operators/:id/role", Perm: web.PermOperatorsManage, Handler: h.changeOperatorRole},
		{Method: post, Path: "/operators/:id/disable", Perm: web.PermOperatorsManage, Handler: h.disableOperator},
		{Method: post, Path: "/operators/:id/enable", Perm: web.PermOperatorsManage, Handler: h.enableOperator},
		{Method: post, Path: "/operators/:id/password", Perm: web.PermOperatorsManage, Handler: h.resetOperatorPassword},

		{Method: get, Path: "/audit", Perm: web.PermAuditRead, Handler: h.auditLog},
	}
}
