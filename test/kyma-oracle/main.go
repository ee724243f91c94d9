// Command kyma-oracle reads a JSON array of version strings on stdin and writes, for each, what
// github.com/Masterminds/semver/v3's NewVersion (lifecycle-manager's parse of a module version) says:
// {"ok":true} or {"ok":false,"error":"..."}.
package main

import (
	"encoding/json"
	"os"

	"github.com/Masterminds/semver/v3"
)

type answer struct {
	OK    bool   `json:"ok"`
	Error string `json:"error,omitempty"`
}

func main() {
	var versions []string
	if err := json.NewDecoder(os.Stdin).Decode(&versions); err != nil {
		os.Stderr.WriteString(err.Error() + "\n")
		os.Exit(2)
	}
	answers := make([]answer, len(versions))
	for i, version := range versions {
		if _, err := semver.NewVersion(version); err != nil {
			answers[i] = answer{Error: err.Error()}
		} else {
			answers[i] = answer{OK: true}
		}
	}
	if err := json.NewEncoder(os.Stdout).Encode(answers); err != nil {
		os.Exit(2)
	}
}
