import { AzureImage } from "../../../builders/machineset";
import { WindowsServerVersion } from "../../../builders/windows";

/** Azure Marketplace Windows Server images WMCO documents, by version. */
export const AZURE_WINDOWS_IMAGES: Record<WindowsServerVersion, AzureImage> = {
  "2019": {
    offer: "WindowsServer",
    publisher: "MicrosoftWindowsServer",
    resourceID: "",
    sku: "2019-datacenter-with-containers-smalldisk",
    version: "latest",
  },
  "2022": {
    offer: "WindowsServer",
    publisher: "MicrosoftWindowsServer",
    resourceID: "",
    sku: "2022-datacenter-smalldisk",
    version: "latest",
  },
  "2025": {
    offer: "WindowsServer",
    publisher: "MicrosoftWindowsServer",
    resourceID: "",
    sku: "2025-datacenter-smalldisk",
    version: "latest",
  },
};
