/**
 * The functions the Kubernetes CEL environment adds to CEL's standard library (k8s.io/apiserver
 * pkg/cel/environment/base.go): cel-go's strings extension, sets and optional types, and Kubernetes'
 * own libraries (pkg/cel/library): lists, regex, quantity, IP, CIDR, format and URL. Equality and list
 * concatenation follow Kubernetes' custom resource lists (values.ts), and `string()` converts the
 * library types.
 */
import { CelFunc, CelScalar, celFunc, CelList, listType, mapType } from "@bufbuild/cel";
import { k8sConcat, k8sEquals } from "../values";
import { FORMAT_LIBRARY } from "./format";
import { listsLibrary } from "./lists";
import { NET_LIBRARY, netString } from "./net";
import { OPTIONAL_LIBRARY } from "./optional";
import { QUANTITY_LIBRARY } from "./quantity";
import { REGEX_LIBRARY } from "./regex";
import { STRINGS_LIBRARY } from "./strings";
import { URL_LIBRARY, urlString } from "./url";

export { OPTIONAL_SELECT } from "./optional";

const { BOOL, DYN, STRING } = CelScalar;
const LIST = listType(DYN);

export const KUBERNETES_LIBRARY: CelFunc[] = [
  ...STRINGS_LIBRARY,
  ...listsLibrary(k8sEquals),
  ...REGEX_LIBRARY,
  ...QUANTITY_LIBRARY,
  ...NET_LIBRARY,
  ...FORMAT_LIBRARY,
  ...URL_LIBRARY,
  ...OPTIONAL_LIBRARY,
  celFunc("_==_", [DYN, DYN], BOOL, k8sEquals),
  celFunc("_!=_", [DYN, DYN], BOOL, (a, b) => !k8sEquals(a, b)),
  celFunc("_+_", [LIST, LIST], LIST, (a: CelList, b: CelList) => k8sConcat(a, b)),
  celFunc("string", [mapType(DYN, DYN)], STRING, (v) => {
    const text = netString(v) ?? urlString(v);
    if (text === undefined) throw new Error("no such overload: string");
    return text;
  }),
];
