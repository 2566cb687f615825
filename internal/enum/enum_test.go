package enum

import (
	"slices"
	"testing"
)

// Every value is described, and every description names a value: the
// GraphQL schema shows these as the values' descriptions.
func TestDocsDescribeEveryValue(t *testing.T) {
	for name, c := range map[string]struct {
		values []string
		docs   map[string]string
	}{
		"LeadSources":         {LeadSources, LeadSourceDocs},
		"LeadPriorities":      {LeadPriorities, LeadPriorityDocs},
		"CallEventTypes":      {CallEventTypes, CallEventTypeDocs},
		"CallDirections":      {CallDirections, CallDirectionDocs},
		"SemanticSlots":       {SemanticSlots, SemanticSlotDocs},
		"PresenceStatuses":    {PresenceStatuses, PresenceStatusDocs},
		"UserRoles":           {UserRoles, UserRoleDocs},
		"LenderProducts":      {LenderProducts, LenderProductDocs},
		"ApplicationStatuses": {ApplicationStatuses, ApplicationStatusDocs},
		"DeclineCategories":   {DeclineCategories, DeclineCategoryDocs},
		"RateTypes":           {RateTypes, RateTypeDocs},
		"PaymentFrequencies":  {PaymentFrequencies, PaymentFrequencyDocs},
		"CommissionStatuses":  {CommissionStatuses, CommissionStatusDocs},
		"PaymentKinds":        {PaymentKinds, PaymentKindDocs},
		"TaskStatuses":        {TaskStatuses, TaskStatusDocs},
		"SavedViewScreens":    {SavedViewScreens, SavedViewScreenDocs},
		"StipulationStatuses": {StipulationStatuses, StipulationStatusDocs},
	} {
		for _, v := range c.values {
			if c.docs[v] == "" {
				t.Errorf("%s: %q has no description", name, v)
			}
		}
		for v := range c.docs {
			if !slices.Contains(c.values, v) {
				t.Errorf("%s: %q is described but is not a value", name, v)
			}
		}
	}
}
