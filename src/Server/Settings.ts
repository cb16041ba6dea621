import { Config } from "effect"
import { ArchiveConfig } from "../Archive/Config.ts"
import { AuditConfig } from "../Audit/Config.ts"
import { AllConfig } from "../Config.ts"
import { CrsConfig } from "../Crs/Config.ts"
import { DeploymentConfig } from "../Crs/DeploymentConfig.ts"
import { StellarRpcConfig } from "../StellarRpc/Config.ts"
import { WebhookConfig } from "../Webhooks/Config.ts"

/**
 * Every setting the service reads: the shared ones (src/Config.ts) and those of the features that keep their own.
 * Launch.ts reads them all before anything starts, so that each value refused is named, all of them together.
 */
export const EverySetting = Config.all([AllConfig, ArchiveConfig, AuditConfig, WebhookConfig, CrsConfig, DeploymentConfig, StellarRpcConfig])
