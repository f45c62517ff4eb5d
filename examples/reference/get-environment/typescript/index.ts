import * as pulumi from "@pulumi/pulumi";
import { getEnvironmentOutput } from "pulumi-gemini-environments";

const config = new pulumi.Config();
const base = getEnvironmentOutput({ id: config.require("environmentId") });

export const status = base.status;
export const fileCount = base.fileCount;
