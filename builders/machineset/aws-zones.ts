import { InputError } from "../errors";

/**
 * The availability zones of each AWS region, as the letters after the region's name. From the AWS
 * documentation ("Regions and Zones", "AWS Availability Zones" per region) and `aws ec2
 * describe-availability-zones --all-availability-zones --filters Name=zone-type,Values=availability-zone`,
 * as of 2025-06. A zone name maps to a zone id per account, and in a few regions accounts see different
 * letters (us-west-1: two of a, b, c; ap-northeast-1: b only on older accounts; ca-central-1: c only on
 * older accounts): the table holds every letter some account sees, so that it never refuses a real zone.
 * A region it does not list (a new one) is checked for the shape of its zone names only.
 */
export const AWS_REGION_ZONES: Readonly<Record<string, string>> = {
  "af-south-1": "abc",
  "ap-east-1": "abc",
  "ap-east-2": "abc",
  "ap-northeast-1": "abcd",
  "ap-northeast-2": "abcd",
  "ap-northeast-3": "abc",
  "ap-south-1": "abc",
  "ap-south-2": "abc",
  "ap-southeast-1": "abc",
  "ap-southeast-2": "abc",
  "ap-southeast-3": "abc",
  "ap-southeast-4": "abc",
  "ap-southeast-5": "abc",
  "ap-southeast-7": "abc",
  "ca-central-1": "abcd",
  "ca-west-1": "abc",
  "cn-north-1": "abd",
  "cn-northwest-1": "abc",
  "eu-central-1": "abc",
  "eu-central-2": "abc",
  "eu-north-1": "abc",
  "eu-south-1": "abc",
  "eu-south-2": "abc",
  "eu-west-1": "abc",
  "eu-west-2": "abc",
  "eu-west-3": "abc",
  "il-central-1": "abc",
  "me-central-1": "abc",
  "me-south-1": "abc",
  "mx-central-1": "abc",
  "sa-east-1": "abc",
  "us-east-1": "abcdef",
  "us-east-2": "abc",
  "us-gov-east-1": "abc",
  "us-gov-west-1": "abc",
  "us-west-1": "abc",
  "us-west-2": "abcd",
};

/**
 * Zones beyond a region's availability zones that OpenShift's edge compute pools use: a Local Zone
 * (`us-east-1-nyc-1a`, `us-west-2-lax-1b`) or a Wavelength Zone (`us-east-1-wl1-bos-wlz-1`). The
 * table does not list them (they come and go by opt-in); their names are checked for shape only.
 */
const EDGE_ZONE = /^-(?:[a-z]+-\d+[a-z]|wl1-[a-z]+-wlz-\d+)$/;

/** The availability zones of `region` by the table, undefined for a region it does not list. */
export function awsZonesOf(region: string): string[] | undefined {
  const letters = Object.prototype.hasOwnProperty.call(AWS_REGION_ZONES, region)
    ? AWS_REGION_ZONES[region]
    : undefined;
  return letters === undefined ? undefined : [...letters].map((letter) => `${region}${letter}`);
}

/**
 * Throws at `path` when `zone` is not a zone of `region`: its name must be the region's and a letter
 * (or a Local or Wavelength Zone's name), and with `table` the letter must be one the region has.
 */
export function checkAwsZone(path: string, zone: string, region: string, table: boolean): void {
  const known = table ? awsZonesOf(region) : undefined;
  const rest = zone.startsWith(region) ? zone.slice(region.length) : undefined;
  if (rest === undefined || !(/^[a-z]$/.test(rest) || EDGE_ZONE.test(rest))) {
    throw new InputError(
      path,
      `AWS zone ${JSON.stringify(zone)} is not in region ${JSON.stringify(region)} (expected e.g. "${known?.[0] ?? `${region}a`}")`,
    );
  }
  if (known && rest.length === 1 && !known.includes(zone)) {
    throw new InputError(
      path,
      `${JSON.stringify(zone)} is not an availability zone of AWS region ${region}: use ${known.map((z) => JSON.stringify(z)).join(", ")} ("aws ec2 describe-availability-zones --region ${region}" lists them)`,
    );
  }
}
