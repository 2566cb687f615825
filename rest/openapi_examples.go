package rest

import (
	"github.com/lendingpipe/svc/ent/apitime"
)

// Examples of the directory lists' responses, as the demo organization
// answers them. The document's validation (and Spectral's) checks each
// against its schema, so an example cannot drift from the shape.

const exampleRequestID = "0193b6a4-2f1c-7d2e-9a41-5c3f8e2b7a10"

// examplePage is a one-page collection of items.
func examplePage(items ...m) m {
	return m{"data": items, "meta": m{"total": len(items), "page": 1, "limit": defaultLimit, "hasMore": false, "requestId": exampleRequestID}}
}

func exampleResource(id, typ string, attrs m) m {
	attrs["createdAt"], attrs["updatedAt"] = apitime.Example, apitime.Example
	return m{"id": id, "type": typ, "attributes": attrs}
}

func stagesExample() m {
	stage := func(id, key, label, color, slot string, position int) m {
		return exampleResource(id, "stage", m{"stageKey": key, "stageLabel": label, "color": color, "semanticSlot": slot, "position": position})
	}
	return examplePage(
		stage("01a2015c-7d3e-7b41-9c1a-3f5e8d2b6a01", "new", "New", "#3b82f6", "new", 0),
		stage("01a2015c-7d3e-7b41-9c1a-3f5e8d2b6a02", "contacted", "Contacted", "#8b5cf6", "working", 1),
	)
}

const exampleTeamID = "01a2015c-7d3e-7b41-9c1a-3f5e8d2b6b01"

func usersExample() m {
	team := exampleTeamID
	user := func(id, first, last, email, role string) m {
		return exampleResource(id, "user", m{"firstName": first, "lastName": last, "email": email, "role": role,
			"teamId": team, "teamName": "Closers"})
	}
	return examplePage(
		user("01a2015c-7d3e-7b41-9c1a-3f5e8d2b6c01", "Riley", "Brooks", "riley.brooks@demo.example", "agent"),
		user("01a2015c-7d3e-7b41-9c1a-3f5e8d2b6c02", "Maya", "Chen", "maya.chen@demo.example", "advisor"),
	)
}

func teamsExample() m {
	return examplePage(exampleResource(exampleTeamID, "team", m{"name": "Closers"}))
}
