import { byRule, type FieldErrorList, fieldError } from "../../admission/field-errors.js";
import { errorRules } from "../../admission/rule-catalogue.js";
import { FieldPath } from "../../base/field-path.js";
import type { WorkBudget } from "../../budget/work-budget.js";
import { present } from "../../cel/policy-cel.js";
import type { WorkspaceSpec } from "../../generated/workspace.js";
import { cronScheduleError } from "../../go/robfig-cron/parse.js";

const webhook = "forkspacer/forkspacer v0.1.24 internal/webhook/v1/workspace_webhook.go";

/** The operator's Workspace webhook's checks of one spec. */
export const workspaceSpecRules = errorRules({
  "workspace.schedule": {
    summary: "an autoHibernation schedule or wakeSchedule that robfig/cron does not parse",
    realSystem:
      "its webhook refuses it (robfig/cron's NewParser with CronParserOptions: seconds optional, descriptors)",
    upstream: `${webhook}, validateWorkspaceScheduleFormat; pkg/constants/cron/base.go`,
    native: {
      by: "webhook",
      why: "robfig/cron's parser: its fields, ranges, descriptors and time zones are beyond CEL",
      callWhen: present("object.spec.autoHibernation"),
    },
  },
  "workspace.wake-schedule": {
    summary: "a wakeSchedule the same as the schedule",
    realSystem: "its webhook refuses it: wakeSchedule cannot be the same as schedule",
    upstream: `${webhook}, validateWorkspaceSpec`,
    native: {
      by: "webhook",
      why: "reported only for a wakeSchedule robfig/cron parses (workspace.schedule otherwise)",
      callWhen: present("object.spec.autoHibernation.wakeSchedule"),
    },
  },
  "workspace.kubeconfig-secret": {
    summary: "a kubeconfig connection without secretReference",
    realSystem: "its webhook refuses it: secretReference is required when connection type is kubeconfig",
    upstream: `${webhook}, validateWorkspaceSecretReference`,
    native: { by: "crd" },
  },
});

const specPath = FieldPath.root("spec");

/**
 * The operator's Workspace rules on one object's state (workspace_webhook.go, validateWorkspaceSpec):
 * schedules that robfig/cron parses with the operator's options, a wake schedule other than the
 * hibernation schedule, and a Secret reference for a kubeconfig connection. The operator also reads
 * the Secret and parses its kubeconfig; that needs read access to Secrets, which this webhook does not
 * take, so it is left to the operator.
 */
export function validateWorkspaceSpec(spec: WorkspaceSpec, budget: WorkBudget): FieldErrorList {
  const errors: FieldErrorList = [];
  const hibernation = spec.autoHibernation;
  if (hibernation) {
    const path = specPath.child("autoHibernation");
    const charge = (field: string) => (units: number) =>
      budget.charge(units, "parsing the schedule", path.child(field));
    const scheduleError = cronScheduleError(hibernation.schedule, charge("schedule"));
    if (scheduleError) {
      errors.push(
        ...byRule("workspace.schedule", [
          fieldError.invalid(path.child("schedule"), hibernation.schedule, scheduleError),
        ]),
      );
    }
    const wake = hibernation.wakeSchedule;
    if (wake !== undefined) {
      const wakeError = cronScheduleError(wake, charge("wakeSchedule"));
      if (wakeError) {
        errors.push(
          ...byRule("workspace.schedule", [fieldError.invalid(path.child("wakeSchedule"), wake, wakeError)]),
        );
      } else if (wake === hibernation.schedule) {
        errors.push(
          ...byRule("workspace.wake-schedule", [
            fieldError.invalid(
              path.child("wakeSchedule"),
              wake,
              "wakeSchedule cannot be the same as schedule",
            ),
          ]),
        );
      }
    }
  }
  const connection = spec.connection;
  if (spec.type !== "managed" && connection?.type === "kubeconfig" && !connection.secretReference) {
    errors.push(
      ...byRule("workspace.kubeconfig-secret", [
        fieldError.required(
          specPath.child("connection").child("secretReference"),
          "secretReference is required when connection type is kubeconfig",
        ),
      ]),
    );
  }
  return errors;
}
