// What lifecycle-manager's version code says of a version: Masterminds/semver at the version
// lifecycle-manager's go.mod requires.
module module-admission/test/kyma-oracle

go 1.26

require github.com/Masterminds/semver/v3 v3.5.0
