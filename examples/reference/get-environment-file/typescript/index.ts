import * as pulumi from "@pulumi/pulumi";
import { getEnvironmentFileOutput } from "pulumi-gemini-environments";

const config = new pulumi.Config();
const readme = getEnvironmentFileOutput({ environmentId: config.require("environmentId"), path: "README.md" });

export const content = readme.content;
export const sizeBytes = readme.sizeBytes;
