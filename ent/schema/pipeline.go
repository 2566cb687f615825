package schema

import "regexp"

var stageKeyPattern = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)

// StageSpec describes a stage of the default pipeline.
type StageSpec struct {
	Key, Label, Color, Slot string
}

// DefaultPipeline is the lending pipeline every new organization starts with.
var DefaultPipeline = []StageSpec{
	{"new", "New", "#3b82f6", "new"},
	{"contacted", "Contacted", "#8b5cf6", "working"},
	{"qualified", "Qualified", "#f59e0b", "qualified"},
	{"application", "Application", "#06b6d4", "application"},
	{"approved", "Approved", "#10b981", "approved"},
	{"funded", "Funded", "#16a34a", "won"},
	{"lost", "Lost", "#ef4444", "lost"},
}
