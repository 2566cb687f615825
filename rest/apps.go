package rest

import (
	"net/http"

	"github.com/google/uuid"

	"github.com/lendingpipe/svc/ent"
	"github.com/lendingpipe/svc/graph"
	"github.com/lendingpipe/svc/internal/apitime"
)

// appHandlers translates /v1/apps/installations (PRODUCT 3: the one REST
// read of apps) onto the appInstallations resolver. Who may read is the
// privacy policy's rule (admin); registering, installing and uninstalling
// are GraphQL mutations.
type appHandlers struct {
	resolver *graph.Resolver
}

func (h appHandlers) installations(w http.ResponseWriter, r *http.Request) error {
	return list(w, r, installationResource, func(page, limit *int) (*graph.AppInstallationPage, error) {
		all, err := boolParam(r, "includeUninstalled")
		if err != nil {
			return nil, err
		}
		return h.resolver.Query().AppInstallations(r.Context(), all, page, limit)
	})
}

// installationAttributes is an app installed by the organization.
type installationAttributes struct {
	AppID         uuid.UUID     `json:"appId" description:"The installed app's id."`
	AppName       string        `json:"appName" description:"The app's name when it was installed."`
	Scopes        []string      `json:"scopes" description:"The scopes granted: a subset of the ones the app asks for."`
	InstalledBy   string        `json:"installedBy" description:"Who installed it: the API key's id, or system."`
	InstalledAt   apitime.Time  `json:"installedAt" description:"When the app was installed."`
	UninstalledAt *apitime.Time `json:"uninstalledAt" description:"When the app was uninstalled; null while installed."`
	CreatedAt     apitime.Time  `json:"createdAt"`
	UpdatedAt     apitime.Time  `json:"updatedAt"`
}

func installationResource(i *ent.AppInstallation) Resource {
	var gone *apitime.Time
	if i.UninstalledAt != nil {
		t := apitime.Of(*i.UninstalledAt)
		gone = &t
	}
	return Resource{ID: i.ID.String(), Type: "app_installation", Attributes: installationAttributes{
		AppID: i.AppID, AppName: i.AppName, Scopes: nonNilSlice(i.Scopes), InstalledBy: i.InstalledBy,
		InstalledAt: apitime.Of(i.CreatedAt), UninstalledAt: gone,
		CreatedAt: apitime.Of(i.CreatedAt), UpdatedAt: apitime.Of(i.UpdatedAt),
	}}
}
