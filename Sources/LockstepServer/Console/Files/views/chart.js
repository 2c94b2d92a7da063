// A small SVG line chart (no library): values over time, newest on the right.
const NS = "http://www.w3.org/2000/svg";

export function lineChart(values, { label = "", band = null, min = null, max = null } = {}) {
  const width = 600;
  const height = 120;
  const all = band ? values.concat(band.flat()) : values;
  const low = min ?? Math.min(0, ...all);
  const high = Math.max(max ?? -Infinity, ...all, low + 1);
  const x = (index) => (values.length <= 1 ? width : (index / (values.length - 1)) * width);
  const y = (value) => height - 6 - ((value - low) / (high - low)) * (height - 12);
  const svg = document.createElementNS(NS, "svg");
  svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
  svg.setAttribute("preserveAspectRatio", "none");
  svg.setAttribute("class", "chart");
  svg.setAttribute("role", "img");
  svg.setAttribute("aria-label", label);
  const axis = document.createElementNS(NS, "line");
  axis.setAttribute("class", "axis");
  axis.setAttribute("x1", 0);
  axis.setAttribute("x2", width);
  axis.setAttribute("y1", y(0));
  axis.setAttribute("y2", y(0));
  svg.append(axis);
  if (band && band.length > 1) {
    const top = band.map(([, upper], index) => `${x(index)},${y(upper)}`);
    const bottom = band.map(([lower], index) => `${x(index)},${y(lower)}`).reverse();
    const polygon = document.createElementNS(NS, "polygon");
    polygon.setAttribute("class", "band");
    polygon.setAttribute("points", top.concat(bottom).join(" "));
    svg.append(polygon);
  }
  const line = document.createElementNS(NS, "polyline");
  line.setAttribute("class", "line");
  line.setAttribute("points", values.map((value, index) => `${x(index)},${y(value)}`).join(" "));
  svg.append(line);
  return svg;
}
